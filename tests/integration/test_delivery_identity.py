"""A delivery's identity and content (issues 37 and 38), on DuckDB and PostgreSQL.

  - A loader reusing an identity (bronze relation, `_source_row_id`, `_load_id`, `_ingested_at`)
    with other content stops the build in `<entity>_ingestion_metadata`, naming the identity, on
    every materialization: an incremental batch no longer passes the row over as judged, and a
    `full` build no longer settles it by a tie against itself.
  - Without dedupe, a quarantined source row corrected and re-delivered under its key in a later
    load is a re-delivery: the build passes, the corrected row is published and its reject row
    resolved.
  - Bronze is a window: after the user deletes an old load from bronze, later builds pass, the
    rows of that load stay in the entity, and conservation still fails on a lost row.
Each history is built once per engine; the tests assert on it."""
from __future__ import annotations

import re
import sys

import pytest

from .harness import ENGINES, INTEGRATION, engine_project

sys.path.insert(0, str(INTEGRATION))
from corpus import shop  # noqa: E402

COLUMNS = shop.CUSTOMERS["columns"]      # id, email, country, signup, notes, _load_id, _ingested_at, _source_row_id
KINDS = ["full", "incremental_by_key", "incremental_by_partition"]
L1 = [("C1", "c1@example.com", "de", "2021-01-01", None, "l1", "2024-01-01 00:00:00", "c-1"),
      ("C2", "c2@example.com", "de", "2021-01-01", None, "l1", "2024-01-01 00:00:00", "c-2"),
      ("C3", "c3@example.com", "SWE", "2021-01-01", None, "l1", "2024-01-01 00:00:00", "c-3")]   # dirty country
# c-1's identity again, with another email: a loader bug
REUSED = ("C1", "other@example.com", "de", "2021-01-01", None, "l1", "2024-01-01 00:00:00", "c-1")


def project_with(engine, tmp, request, kind="incremental_by_key", dedupe=True):
    project = engine_project(engine, tmp, request)
    project.materialize(kind, "customer")
    if not dedupe:
        path = project.dir / "specs" / "entity_model.yaml"
        text, n = re.subn(r"(customer account\n(?:    .*\n)*?)    dedupe: .*\n", r"\1", path.read_text())
        assert n == 1
        path.write_text(text)
    project.write_bronze("shop__orders", shop.ORDERS["columns"], [])
    project.write_bronze("shop__order_items", shop.ORDER_ITEMS["columns"], [])
    return project


def audit_rows(project, name):
    return project.query(f"select problem, _source_row_id, _load_id, _ingested_at from main_dbt_test__audit.{name}")


# -- an identity reused with other content --------------------------------------------------------
@pytest.fixture(scope="module", params=ENGINES)
def reused(request, tmp_path_factory):
    """Per materialization: a first build of L1, then c-1's identity appended with other content
    and a second build, which must stop."""
    out = {}
    for kind in KINDS:
        project = project_with(request.param, tmp_path_factory.mktemp(f"reused_{kind}"), request, kind)
        project.write_bronze("crm__customers", COLUMNS, L1)
        assert project.compile() == 0
        first = project.dbt("build")
        project.write_bronze("crm__customers", COLUMNS, [REUSED], append=True)
        second = project.dbt("build", check=False)
        out[kind] = (project, first, second)
    return out


@pytest.mark.parametrize("kind", KINDS)
def test_an_identity_reused_with_other_content_stops_the_build(reused, kind):
    project, first, second = reused[kind]
    assert first.statuses["customer_ingestion_metadata"] == "pass"
    assert second.statuses["customer_ingestion_metadata"] == "fail"
    for node in ("customer", "customer__reject", "customer__ledger", "customer__quality"):
        assert second.statuses[node] == "skipped", node
    found = audit_rows(project, "customer_ingestion_metadata")
    identity = "identity crm__customers / c-1 / l1 / 2024-01-01 00:00:00 delivered with other content"
    assert found and all(problem.startswith(identity) for problem, *_ in found), found
    assert {tuple(r[1:]) for r in found} == {("c-1", "l1", "2024-01-01 00:00:00")}
    # nothing was published on top of the first build
    assert project.query("select email from main.customer where _source_row_id = 'c-1'") == [("c1@example.com",)]


# -- without dedupe: a quarantined row fixed at the source ----------------------------------------
FIXED = ("C3", "c3@example.com", "se", "2021-01-01", None, "l2", "2024-01-02 00:00:00", "c-3")


@pytest.fixture(scope="module", params=ENGINES)
def fixed(request, tmp_path_factory):
    out = {}
    for kind in ("incremental_by_key", "full"):
        project = project_with(request.param, tmp_path_factory.mktemp(f"fixed_{kind}"), request, kind, dedupe=False)
        project.write_bronze("crm__customers", COLUMNS, L1)
        assert project.compile() == 0
        first = project.dbt("build")
        project.write_bronze("crm__customers", COLUMNS, [FIXED], append=True)
        second = project.dbt("build", check=False)
        third = project.dbt("build", check=False)        # nothing new: nothing changes
        out[kind] = (project, first, second, third)
    # and one build over both loads at once puts every row in the same place
    once = project_with(request.param, tmp_path_factory.mktemp("fixed_once"), request, dedupe=False)
    once.write_bronze("crm__customers", COLUMNS, L1 + [FIXED])
    assert once.compile() == 0
    out["once"] = (once, once.dbt("build", check=False))
    return out


def placed(project):
    return {
        "entity": sorted(project.query("select customer_id, country, _source_row_id, _load_id from main.customer "
                                       "where _source_row_id is not null")),
        "unresolved": project.query("select _source_row_id from main.customer__reject where resolved_at is null"),
        "ledger": sorted(project.query("select _source_row_id, _load_id, route, winner_row_id from main.customer__ledger")),
    }


@pytest.mark.parametrize("kind", ["incremental_by_key", "full"])
def test_a_row_fixed_at_the_source_is_a_redelivery_without_dedupe(fixed, kind):
    project, first, second, third = fixed[kind]
    assert project.query("select _source_row_id from main.customer__reject") == [("c-3",)]
    assert first.statuses["customer_ingestion_metadata"] == "pass"
    for result in (second, third):
        assert result.success, result.statuses
        for audit in ("customer_ingestion_metadata", "customer_conservation", "customer_key_unique"):
            assert result.statuses[audit] == "pass", audit
    assert placed(project) == {
        "entity": [("C1", "DE", "c-1", "l1"), ("C2", "DE", "c-2", "l1"), ("C3", "SE", "c-3", "l2")],
        "unresolved": [],
        "ledger": [("c-1", "l1", "keep", None), ("c-2", "l1", "keep", None),
                   ("c-3", "l1", "deduped", "c-3"), ("c-3", "l2", "keep", None)],
    }
    once, result = fixed["once"]
    assert result.success and result.statuses["customer_ingestion_metadata"] == "pass"
    assert placed(once)["entity"] == placed(project)["entity"] and placed(once)["unresolved"] == []


@pytest.mark.duckdb
def test_a_source_row_under_two_keys_is_still_refused_without_dedupe(tmp_path, request):
    """What the claim check is for: one source row's surviving deliveries under two keys."""
    project = project_with("duckdb", tmp_path, request, dedupe=False)
    moved = ("C9", "c3@example.com", "se", "2021-01-01", None, "l2", "2024-01-02 00:00:00", "c-3")
    project.write_bronze("crm__customers", COLUMNS, L1 + [moved])
    assert project.compile() == 0
    result = project.dbt("build", check=False)
    assert result.statuses["customer_ingestion_metadata"] == "fail"
    assert {r[0] for r in audit_rows(project, "customer_ingestion_metadata")} == {"_source_row_id claimed by 2 keys"}


# -- bronze retention: the user deletes an old load -----------------------------------------------
L2 = [("C4", "c4@example.com", "de", "2021-01-01", None, "l2", "2024-01-02 00:00:00", "c-4"),
      ("C1", "c1-new@example.com", "de", "2021-01-01", None, "l2", "2024-01-02 00:00:00", "c-1")]   # c-1 re-delivered
L3 = [("C5", "c5@example.com", "de", "2021-01-01", None, "l3", "2024-01-03 00:00:00", "c-5"),
      ("C2", "c2-new@example.com", "de", "2021-01-01", None, "l3", "2024-01-03 00:00:00", "c-22")]  # a newer row of C2


C6 = ("C6", "c6@example.com", "de", "2021-01-01", None, "l1", "2024-01-01 00:00:00", "c-6")   # stays in the entity


@pytest.fixture(scope="module", params=ENGINES)
def trimmed(request, tmp_path_factory):
    """Incremental: L1, then L2, then the user deletes L1 from bronze, then L3 (its C2 row replaces
    the row of c-2, which bronze no longer holds) and a build with nothing new."""
    project = project_with(request.param, tmp_path_factory.mktemp("trimmed"), request)
    project.write_bronze("crm__customers", COLUMNS, L1 + [C6])
    assert project.compile() == 0
    results = [project.dbt("build")]
    project.write_bronze("crm__customers", COLUMNS, L2, append=True)
    results.append(project.dbt("build"))
    project.execute("delete from main.crm__customers where _load_id = 'l1'")
    results.append(project.dbt("build", check=False))
    project.write_bronze("crm__customers", COLUMNS, L3, append=True)
    results.append(project.dbt("build", check=False))
    results.append(project.dbt("build", check=False))
    return project, results


def test_builds_pass_after_bronze_lost_a_load(trimmed):
    project, results = trimmed
    for result in results:
        assert result.success, result.statuses
        assert result.statuses["customer_conservation"] == "pass"
        assert result.statuses["customer_ingestion_metadata"] == "pass"
    # the rows of l1 bronze no longer holds stay where they were, but the one a newer C2 replaced
    assert sorted(project.query("select customer_id, email, _load_id from main.customer")) == [
        ("C1", "c1-new@example.com", "l2"), ("C2", "c2-new@example.com", "l3"),
        ("C4", "c4@example.com", "l2"), ("C5", "c5@example.com", "l3"), ("C6", "c6@example.com", "l1")]
    assert project.query("select _source_row_id, _load_id from main.customer__reject where resolved_at is null") \
        == [("c-3", "l1")]
    # the ledger keeps the verdicts of the deliveries bronze lost, where they still are; c-2's row
    # was replaced by a newer delivery of its key, so it is no longer a kept delivery
    ledger = project.query("select _source_row_id, _load_id, route from main.customer__ledger")
    assert {("c-6", "l1", "keep"), ("c-3", "l1", "quarantine")} <= set(ledger)
    assert [r for r in ledger if r[0] == "c-2"] == []


@pytest.mark.parametrize("tamper, problem", [
    ("delete from main.customer where _source_row_id = 'c-4'", "bronze row never judged"),
    # a duplicated kept row makes its load hold more verdicts than bronze rows, as a trimmed load does
    ("insert into main.customer select * from main.customer where _source_row_id = 'c-4'",
     "entity row 2 times (its load has more verdicts than bronze rows)"),
    ("insert into main.customer select * from main.customer where _source_row_id = 'c-6'",
     "entity row 2 times (its load has more verdicts than bronze rows)"),
    # the ledger records c-6's delivery as diverted: its entity row is then no kept delivery, and
    # no replay admitted it
    ("insert into main.customer__ledger_rest select source_relation, _source_row_id, _load_id, _ingested_at, "
     "content_hash, 'quarantine', winner_row_id, run_id from main.customer__ledger where _source_row_id = 'c-6'",
     "entity row without a kept delivery (its load has more verdicts than bronze rows)"),
])
def test_conservation_still_finds_a_lost_or_duplicated_row_after_bronze_was_trimmed(trimmed, tamper, problem):
    project, _ = trimmed
    saved = ("customer", "customer__ledger_rest")
    for t in saved:
        project.execute(f"create table main.{t}_saved as select * from main.{t}")
    try:
        project.execute(tamper)
        result = project.dbt("test", "--select", "customer_conservation", check=False)
        assert result.statuses["customer_conservation"] == "fail"
        found = project.query("select problem from main_dbt_test__audit.customer_conservation")
        assert any(problem in f[0] for f in found), found
    finally:
        for t in saved:
            project.execute(f"delete from main.{t}")
            project.execute(f"insert into main.{t} select * from main.{t}_saved")
            project.execute(f"drop table main.{t}_saved")
    assert project.dbt("test", "--select", "customer_conservation").statuses["customer_conservation"] == "pass"
