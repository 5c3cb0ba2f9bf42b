"""helper-20's cases against the quarantine-rate test whose results are rows (issue 41): the rows
held in quarantine with a 0/1 column per threshold, warn_if / error_if `>0 and max(<column>) = 1`,
and the summary's rows and percent. Thresholds at the edges, every row held, none evaluated, a
merged entity, a type 2 entity with history, a parent with an Unknown member, and a `dbt test`
after a replay resolved a row without a build."""
from __future__ import annotations

import json

import pytest

from .harness import DuckProject, specs_folder, summary
from .test_quarantine_rate import COLUMNS, ROWS, _compiled_test, rebuild, specs

# dbt_artifacts: run_results.json is read, by the tests and by `bloomery summary`
pytestmark = [pytest.mark.duckdb, pytest.mark.dbt_artifacts]


def line_of(text, name):
    return [l for l in text.splitlines() if name in l]


@pytest.fixture
def project(tmp_path):
    p = DuckProject(tmp_path, specs(tmp_path))
    p.write_bronze("lab__readings", COLUMNS, ROWS)
    return p


CASES = [
    # thresholds, status, failures, message column, summary limits
    (", warn_above: 0%, error_above: 0%", "fail", 3, "fail if >0 and max(quarantined_above_0pct) = 1", "warn above 0%, error above 0%"),
    (", warn_above: 0.01%", "warn", 3, "warn if >0 and max(quarantined_above_0_01pct) = 1", "warn above 0.01%"),
    (", warn_above: 0.01%, error_above: 0.1%", "fail", 3, "fail if >0 and max(quarantined_above_0_1pct) = 1", "warn above 0.01%, error above 0.1%"),
    (", warn_above: 99.99%", "pass", 0, None, None),
    (", warn_above: 14.28%, error_above: 99.99%", "warn", 3, "warn if >0 and max(quarantined_above_14_28pct) = 1", "warn above 14.28%, error above 99.99%"),
    (", warn_above: 100%, error_above: 100%", "pass", 0, None, None),
    (", warn_above: 1.5%, error_above: 15%", "warn", 3, "warn if >0 and max(quarantined_above_1_5pct) = 1", "warn above 1.5%, error above 15%"),
]


def test_threshold_matrix(project):
    bad = []
    for thresholds, status, failures, message, limits in CASES:
        result, entry = rebuild(project, thresholds)
        got = (entry["status"], entry["failures"])
        if got != (status, failures):
            bad.append((thresholds, "status", got, (status, failures), entry["message"]))
            continue
        if message and not (entry["message"] or "").endswith(message):
            bad.append((thresholds, "message", entry["message"], message))
        if result.success != (status != "fail"):
            bad.append((thresholds, "success", result.success))
        code, text = summary(project)
        lines = line_of(text, "reading_quarantine_rate")
        if status == "pass":
            if lines:
                bad.append((thresholds, "summary lists a passing test", lines))
        else:
            want = (f"{status.upper()} reading_quarantine_rate: 3 rows held in quarantine, 14.29% of 21 evaluated "
                    f"({limits})")
            if not any(want in l for l in lines):
                bad.append((thresholds, "summary", lines, want))
    assert bad == []


def test_all_rows_quarantined_and_zero_rows(tmp_path):
    p = DuckProject(tmp_path, specs(tmp_path))
    allbad = [(i, "n/a", *rest) for i, _, *rest in ROWS]
    p.write_bronze("lab__readings", COLUMNS, allbad)
    bad = []
    result, entry = rebuild(p, ", warn_above: 99.99%, error_above: 100%")
    if (entry["status"], entry["failures"]) != ("warn", 21):
        bad.append(("all bad, 99.99/100", entry["status"], entry["failures"], entry["message"]))
    code, text = summary(p)
    if not any("21 rows held in quarantine, 100.00% of 21 evaluated" in l for l in line_of(text, "quarantine_rate")):
        bad.append(("summary all", text))
    rows = p.query(_compiled_test(p))
    if not rows or {str(r[7]) for r in rows} != {"100.00"}:
        bad.append(("quarantined_percent", rows[:2]))
    result, entry = rebuild(p, ", warn_above: 0%, error_above: 99.99%")
    if (entry["status"], entry["failures"]) != ("fail", 21):
        bad.append(("all bad, 0/99.99", entry["status"], entry["failures"]))
    # zero rows: bronze emptied (a full entity re-judges all of bronze; old rejects stay as history)
    (tmp_path / "zero").mkdir()
    p2 = DuckProject(tmp_path / "zero", specs(tmp_path / "zero"))
    p2.write_bronze("lab__readings", COLUMNS, [])
    result, entry = rebuild(p2, ", warn_above: 0%, error_above: 0%")
    if not result.success or (entry["status"], entry["failures"]) != ("pass", 0):
        bad.append(("zero rows", result.statuses, entry["status"], entry["failures"], entry["message"]))
    code, text = summary(p2)
    assert bad == []


def test_summary_rate_after_replay_then_dbt_test(project):
    """replay resolves rows without a build: a `dbt test` then judges the tables as they stand
    (fewer rows held), while the summary prints the rate the mart recorded for the last build."""
    result, entry = rebuild(project, ", warn_above: 1%")
    assert entry["failures"] == 3
    # a replay's effect, by hand: r03's reject resolved and its row admitted, no build after it
    project.execute("update main.reading__reject set resolved_at = now() where _source_row_id = 's03'")
    project.execute("insert into main.reading select * replace ('r03' as reading_id, 's03' as _source_row_id) "
                    "from main.reading where _source_row_id = 's04'")
    tested = project.dbt("test", "--select", "reading_quarantine_rate", check=False)
    results = json.loads((project.dir / "target" / "run_results.json").read_text())["results"]
    (entry,) = [r for r in results if r["unique_id"].startswith("test.")]
    code, text = summary(project)
    lines = line_of(text, "reading_quarantine_rate")
    # 2 rows held now; the rate is the mart's run's, and the summary says which is which
    assert entry["failures"] == 2
    assert any("2 rows held in quarantine now; the mart's latest run recorded 14.29% of 21 evaluated" in l
               for l in lines), lines


def _entry(p, name):
    results = json.loads((p.dir / "target" / "run_results.json").read_text())["results"]
    return next(r for r in results if r["unique_id"].startswith("test.") and f".{name}." in r["unique_id"])


def _check(p, name, held, evaluated, status):
    r = p.dbt("build", check=False)
    e = _entry(p, name)
    unresolved = p.query(f"select count(*) from main.{name.replace('_quarantine_rate', '')}__reject where resolved_at is null")[0][0]
    code, text = summary(p)
    lines = line_of(text, name)
    pct = f"{held * 100 / evaluated:.2f}%"
    return dict(status=(e["status"], e["failures"]), want=(status, held), unresolved=unresolved, message=e["message"],
                lines=lines, want_line=f"{held} row{'' if held == 1 else 's'} held in quarantine, {pct} of {evaluated} evaluated",
                statuses={k: v for k, v in r.statuses.items() if v not in ("success", "pass")})


def test_merged_entity(tmp_path):
    from .test_merged_duckdb import (EU, EU_COLUMNS, EU_ROWS, EU_SPEC, MODEL, US, US_COLUMNS,
                                                      US_ROWS, US_SPEC)
    model = MODEL.replace("quarantine: {retention: 365d}", "quarantine: {retention: 365d, warn_above: 10%, error_above: 90%}")
    p = DuckProject(tmp_path, specs_folder(tmp_path, {"model.yaml": model, "eu.yaml": EU_SPEC, "us.yaml": US_SPEC}))
    p.write_bronze(EU, EU_COLUMNS, EU_ROWS)
    p.write_bronze(US, US_COLUMNS, US_ROWS)
    assert p.compile() == 0
    got = _check(p, "payment_quarantine_rate", 6, 9, "warn")
    assert got["status"] == got["want"] and any(got["want_line"] in l for l in got["lines"]), (got["lines"], got["want_line"], got["statuses"])


def test_scd2_entity(tmp_path):
    from .test_scd2_duckdb import COLUMNS as SC, SPECS
    p = DuckProject(tmp_path, specs=SPECS)
    path = p.dir / "specs" / "entity_model.yaml"
    path.write_text(path.read_text().replace("quarantine: {retention: 90d}", "quarantine: {retention: 90d, warn_above: 10%}"))
    p.materialize("incremental_by_key")
    p.write_bronze("erp__prices", SC, [
        ("S1", "std", "10.00", "l1", "2024-01-01 00:00:00", "r-1"),
        ("S2", "premium", "99.00", "l1", "2024-01-01 00:00:00", "r-2"),
        ("S3", "premium", "n/a", "l1", "2024-01-01 00:00:00", "r-4")])
    assert p.compile() == 0
    p.dbt("build", check=False)
    for i in range(3):   # three more versions of S1: history must not count as evaluated
        p.write_bronze("erp__prices", SC, [("S1", "std", f"1{i}.50", f"l{i+2}", f"2024-01-0{i+2} 00:00:00", f"r-1{i}")], append=True)
        p.dbt("build", check=False)
    got = _check(p, "price_quarantine_rate", 2, 3, "warn")
    assert got["status"] == got["want"] and any(got["want_line"] in l for l in got["lines"]), (got["lines"], got["want_line"], got["statuses"])


UM_MODEL = """\
spec_version: 1
entities:
  customer:
    grain: one row per customer
    key: [customer_id]
    fields: {customer_id: {type: string}, score: {type: int}}
    quarantine: {retention: 30d, warn_above: 20%%, error_above: 40%%}
  order:
    grain: one row per order
    key: [order_id]
    fields: {order_id: {type: string}, customer_id: {type: string}}
    quality:
      - {rule: referential, via: order_of_customer, on_missing: unknown_member}
relationships:
  - {name: order_of_customer, from: order, to: customer, via: {customer_id: customer_id}, cardinality: many_to_one}
"""
UM_CUSTOMERS = """\
mapping_version: 1
source: crm__customers
target: customer
key: {customer_id: {from: "$.id"}}
fields: {score: {from: "$.score", transform: [to_int]}}
unmapped: ["$._load_id", "$._ingested_at", "$._source_row_id"]
"""
UM_ORDERS = """\
mapping_version: 1
source: shop__orders
target: order
key: {order_id: {from: "$.id"}}
fields: {customer_id: {from: "$.cust"}}
unmapped: ["$._load_id", "$._ingested_at", "$._source_row_id"]
"""


def test_unknown_member_parent(tmp_path):
    p = DuckProject(tmp_path, specs_folder(tmp_path, {"model.yaml": UM_MODEL.replace("%%", "%"),
                                                      "c.yaml": UM_CUSTOMERS, "o.yaml": UM_ORDERS}))
    meta = ("l1", "2024-01-01 00:00:00")
    # 3 customers kept, 1 quarantined: 25% (>20% warn, <40% error); the Unknown member row must not count
    p.write_bronze("crm__customers", ["id", "score", "_load_id", "_ingested_at", "_source_row_id"],
                   [("C1", "1", *meta, "c1"), ("C2", "2", *meta, "c2"), ("C3", "3", *meta, "c3"), ("C4", "x", *meta, "c4")])
    p.write_bronze("shop__orders", ["id", "cust", "_load_id", "_ingested_at", "_source_row_id"],
                   [("O1", "C1", *meta, "o1"), ("O2", "C9", *meta, "o2")])
    assert p.compile() == 0
    got = _check(p, "customer_quarantine_rate", 1, 4, "warn")
    assert got["status"] == got["want"] and any(got["want_line"] in l for l in got["lines"]), (got["lines"], got["want_line"], got["statuses"])
