"""A merged entity (two mappings, two bronze relations, one entity) carrying quality rules,
quarantine and dedupe, on DuckDB and PostgreSQL (issue 20; product page, "The reject table and
the replay lifecycle"): one reject table whose rows each name their mapping and carry their own
bronze payload; replay re-runs, per reject row, the mapping that produced it; conservation holds
over both relations; a key delivered by both mappings stops the build unless dedupe decides.

The two relations reuse `_source_row_id`s (r-1 .. r-4 in each): a row is identified by its
bronze relation and its source row id, never by the id alone."""
from __future__ import annotations

import json

import pytest

from .harness import DuckProject, PgProject

ENTITY = "payment"
EU, US = "eu__payments", "us__payments"
EU_MAPPING, US_MAPPING = f"{EU}->{ENTITY}", f"{US}->{ENTITY}"

MODEL = """\
spec_version: 1
entities:
  payment:
    grain: one row per payment
    materialization: incremental_by_key   # later loads are incremental batches (rows matched by relation and id)
    key: [payment_id]
    fields:
      payment_id: {type: string}
      amount: {type: "decimal(12,2)"}
      method: {type: string}
    quarantine: {retention: 365d}
    quality:
      - {rule: expression, name: large_amount, expr: "amount <= 10000", on_fail: flag}
"""
DEDUPE = "    dedupe: {keep: latest_by, field: _ingested_at, tie_break: [_load_id]}\n"
# the EU shop sends decimals as text and names a method by its own words
EU_SPEC = """\
mapping_version: 1
source: eu__payments
target: payment
key: {payment_id: {from: "$.ref", transform: [trim]}}
fields:
  amount:
    from: "$.amount"
    transform: [{to_decimal: [12, 2]}]
    quality:
      - {rule: range, min: 0, on_fail: quarantine}
  method:
    from: "$.method"
    transform: [lower, {enum_map: [card, card, sepa, sepa]}]
    quality:
      - {rule: in_enum, on_fail: quarantine}
unmapped: ["$._load_id", "$._ingested_at", "$._source_row_id"]
"""
# the US shop sends whole dollars as an int and a payment kind
US_SPEC = """\
mapping_version: 1
source: us__payments
target: payment
key: {payment_id: {from: "$.id"}}
fields:
  amount:
    from: "$.dollars"
    transform: [to_int, {to_decimal: [12, 2]}]
    quality:
      - {rule: range, max: 5000, on_fail: quarantine}
  method:
    from: "$.kind"
    transform: [lower]
    quality:
      - {rule: in_set, values: [card, wire], on_fail: quarantine}
unmapped: ["$._load_id", "$._ingested_at", "$._source_row_id"]
"""
US_FIX = ("values: [card, wire]", "values: [card, wire, check]")

EU_COLUMNS = ["ref", "amount", "method", "_load_id", "_ingested_at", "_source_row_id"]
US_COLUMNS = ["id", "dollars", "kind", "_load_id", "_ingested_at", "_source_row_id"]
T1, T2 = "2024-01-10 10:00:00", "2024-01-11 10:00:00"
EU_ROWS = [("P-1", "12.50", "Card", "l1", T1, "r-1"),      # kept
           ("P-2", "12,50 €", "card", "l1", T1, "r-2"),    # amount does not cast
           ("P-3", "-5.00", "sepa", "l1", T1, "r-3"),      # EU's range (min 0)
           ("P-4", "20.00", "check", "l1", T1, "r-4"),     # EU's enum has no `check`
           ("P-5", "20000.00", "card", "l1", T1, "r-5")]   # kept, flagged; US's max 5000 is not EU's rule
US_ROWS = [("U-1", "30", "card", "l1", T1, "r-1"),          # kept
           ("U-2", "abc", "card", "l1", T1, "r-2"),         # amount does not cast
           ("U-3", "9000", "wire", "l1", T1, "r-3"),        # US's range (max 5000)
           ("U-4", "40", "check", "l1", T1, "r-4")]         # US's set has no `check` (yet)

EXPECTED_REJECTS = {
    (EU, EU_MAPPING, "r-2"): ["amount_coercible"],
    (EU, EU_MAPPING, "r-3"): ["amount_range_min"],
    (EU, EU_MAPPING, "r-4"): ["method_in_enum"],
    (US, US_MAPPING, "r-2"): ["amount_coercible"],
    (US, US_MAPPING, "r-3"): ["amount_range_max"],
    (US, US_MAPPING, "r-4"): ["method_in_set"],
}


@pytest.fixture(params=[pytest.param("duckdb", marks=pytest.mark.duckdb),
                        pytest.param("postgres", marks=pytest.mark.postgres),
                        pytest.param("spark", marks=pytest.mark.spark)])
def make(request, tmp_path):
    """make(dedupe=False, eu=EU_ROWS, us=US_ROWS) -> a compiled project with bronze written."""
    def _make(dedupe=False, eu=EU_ROWS, us=US_ROWS):
        specs = tmp_path / "specs"
        specs.mkdir()
        (specs / "model.yaml").write_text(MODEL + (DEDUPE if dedupe else ""))
        (specs / "eu.yaml").write_text(EU_SPEC)
        (specs / "us.yaml").write_text(US_SPEC)
        if request.param == "duckdb":
            project = DuckProject(tmp_path, specs)
        elif request.param == "spark":
            from .spark import SparkProject
            project = SparkProject(tmp_path, specs)
        else:
            project = PgProject(tmp_path, request.getfixturevalue("pg_server"), specs)
        project.write_bronze(EU, EU_COLUMNS, eu)
        project.write_bronze(US, US_COLUMNS, us)
        assert project.compile() == 0
        return project
    return _make


def _flags(value) -> list[str]:
    return sorted(value) if isinstance(value, (list, tuple)) else sorted(v for v in str(value).split(",") if v)


def _raw(value) -> dict:
    return value if isinstance(value, dict) else json.loads(value)


def _rejects(project, unresolved_only=True) -> dict:
    where = " where resolved_at is null" if unresolved_only else ""
    return {(r["source_relation"], r["mapping"], r["_source_row_id"]): r
            for r in project.rows(f'select * from main."{ENTITY}__reject"{where}')}


def _entity(project) -> dict:
    return {(r["_source"], r["_source_row_id"]): r for r in project.rows(f'select * from main."{ENTITY}"')}


def _bronze(project) -> set:
    return {(EU, r[0]) for r in project.query(f'select "_source_row_id" from main."{EU}"')} | \
           {(US, r[0]) for r in project.query(f'select "_source_row_id" from main."{US}"')}


def _assert_conserved(project, deduped=frozenset()):
    """Every bronze row of both relations is in the entity, an unresolved reject, or deduped: once."""
    kept = set(_entity(project))
    rejected = {(s, rid) for s, _, rid in _rejects(project)}
    assert not kept & rejected
    assert kept | rejected | set(deduped) == _bronze(project)
    assert len(kept) + len(rejected) + len(deduped) == len(_bronze(project))


def test_merged_entity_diverts_replays_and_conserves(make):
    project = make()
    result = project.dbt("build")
    assert result.statuses[f"{ENTITY}_conservation"] == "pass"
    assert result.statuses[f"{ENTITY}_source_collision"] == "pass"

    # each mapping's rows went through their own transforms and field rules; the entity rule judged all
    kept = _entity(project)
    assert set(kept) == {(EU, "r-1"), (EU, "r-5"), (US, "r-1")}
    assert str(kept[(EU, "r-1")]["amount"]) == "12.50" and kept[(EU, "r-1")]["method"] == "card"
    assert str(kept[(US, "r-1")]["amount"]) == "30.00"
    assert _flags(kept[(EU, "r-5")]["_quality_flags"]) == ["large_amount"]

    # one reject table: each row names its mapping, its relation, and holds its own bronze payload
    rejects = _rejects(project)
    assert {k: _flags(r["failed_rules"]) for k, r in rejects.items()} == EXPECTED_REJECTS
    assert _raw(rejects[(EU, EU_MAPPING, "r-2")]["raw"])["amount"] == "12,50 €"
    assert set(_raw(rejects[(EU, EU_MAPPING, "r-2")]["raw"])) >= {"ref", "amount", "method"}
    assert _raw(rejects[(US, US_MAPPING, "r-2")]["raw"])["dollars"] == "abc"
    assert set(_raw(rejects[(US, US_MAPPING, "r-2")]["raw"])) >= {"id", "dollars", "kind"}
    assert len({r["reject_id"] for r in rejects.values()}) == 6   # r-2 of EU and r-2 of US: two rows
    _assert_conserved(project)

    # the mart counts per mapping, adding up to the entity
    mart = {(r["mapping"], r["rule"]): r for r in project.rows(
        "select * from main.mart_data_quality where run_id = (select max(run_id) from main.mart_data_quality)")}
    assert mart[(EU_MAPPING, "(entity)")]["rows_evaluated"] == 5
    assert mart[(EU_MAPPING, "(entity)")]["rows_quarantined"] == 3
    assert mart[(US_MAPPING, "(entity)")]["rows_evaluated"] == 4
    assert mart[(US_MAPPING, "(entity)")]["rows_quarantined"] == 3
    assert mart[(EU_MAPPING, "(entity)")]["rows_deduped"] == mart[(US_MAPPING, "(entity)")]["rows_deduped"] == 0
    assert mart[(US_MAPPING, "method_in_set")]["rows_failed"] == 1
    assert (EU_MAPPING, "method_in_set") not in mart       # US's rule never judged an EU row
    assert mart[(EU_MAPPING, "large_amount")]["rows_failed"] == 1

    # a fix in ONE mapping: only its rejects come back, each through its own mapping. EU's `check`
    # row would pass US's widened set, but it is re-judged by EU's mapping, and stays.
    path = project.dir / "specs" / "us.yaml"
    path.write_text(path.read_text().replace(*US_FIX))
    assert project.compile() == 0
    project.dbt("run-operation", "bloomery.replay", "--args", f"{{entity: {ENTITY}}}")
    rejects = _rejects(project)
    expected = {k: v for k, v in EXPECTED_REJECTS.items() if k != (US, US_MAPPING, "r-4")}
    assert {k: _flags(r["failed_rules"]) for k, r in rejects.items()} == expected
    resolved = {k for k, r in _rejects(project, unresolved_only=False).items() if r["resolved_at"] is not None}
    assert resolved == {(US, US_MAPPING, "r-4")}
    kept = _entity(project)
    assert set(kept) == {(EU, "r-1"), (EU, "r-5"), (US, "r-1"), (US, "r-4")}
    assert kept[(US, "r-4")]["payment_id"] == "U-4" and str(kept[(US, "r-4")]["amount"]) == "40.00"
    _assert_conserved(project)

    # the next build agrees with the replay, and conservation still holds
    result = project.dbt("build")
    assert result.statuses[f"{ENTITY}_conservation"] == "pass"
    assert set(_entity(project)) == {(EU, "r-1"), (EU, "r-5"), (US, "r-1"), (US, "r-4")}
    _assert_conserved(project)

    # an incremental load into one relation touches only its rows
    project.write_bronze(US, US_COLUMNS, [("U-5", "50", "wire", "l2", T2, "r-5")], append=True)
    project.dbt("build")
    assert set(_entity(project)) == {(EU, "r-1"), (EU, "r-5"), (US, "r-1"), (US, "r-4"), (US, "r-5")}
    assert {k: _flags(r["failed_rules"]) for k, r in _rejects(project).items()} == expected
    _assert_conserved(project)


def test_a_key_from_both_mappings_stops_the_build(make):
    project = make(us=US_ROWS + [("P-1", "15", "card", "l1", T1, "r-9")])
    result = project.dbt("build", check=False)
    assert not result.success
    assert result.statuses[f"{ENTITY}_source_collision"] == "fail"
    assert result.statuses[ENTITY] == "skipped"


def test_a_key_from_both_mappings_in_later_runs_stops_the_build(make):
    project = make()
    project.dbt("build")
    project.write_bronze(EU, EU_COLUMNS, [("U-1", "31.00", "card", "l2", T2, "r-6")], append=True)
    result = project.dbt("build", check=False)
    assert result.statuses[f"{ENTITY}_source_collision"] == "fail"


def test_with_dedupe_the_newer_delivery_wins_across_mappings(make):
    newer = ("P-1", "15", "card", "l2", T2, "r-9")   # US delivers EU's P-1 again, a day later
    project = make(dedupe=True, us=US_ROWS + [newer])
    result = project.dbt("build")
    assert f"{ENTITY}_source_collision" not in result.statuses
    assert result.statuses[f"{ENTITY}_conservation"] == "pass"
    kept = _entity(project)
    p1 = [r for r in kept.values() if r["payment_id"] == "P-1"]
    assert len(p1) == 1 and p1[0]["_source"] == US and p1[0]["_source_row_id"] == "r-9"
    assert str(p1[0]["amount"]) == "15.00"
    _assert_conserved(project, deduped={(EU, "r-1")})
    mart = {(r["mapping"], r["rule"]): r for r in project.rows("select * from main.mart_data_quality")}
    assert mart[(EU_MAPPING, "(entity)")]["rows_deduped"] == 1
    assert mart[(US_MAPPING, "(entity)")]["rows_deduped"] == 0
