"""Issue 4 on DuckDB: each blocking audit fails on a fixture built to violate it, the nodes after it
are skipped, the mart's counts match counts computed from the corpus, freshness reports."""
from __future__ import annotations

import sys
from collections import Counter

import pytest

from .corpus_checks import load_shop, outcome
from .harness import INTEGRATION, DuckProject

sys.path.insert(0, str(INTEGRATION))
from corpus import shop  # noqa: E402

pytestmark = pytest.mark.duckdb


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    project = DuckProject(tmp_path_factory.mktemp("audits"))
    load_shop(project)
    assert project.compile() == 0
    result = project.dbt("build")
    assert result.statuses["customer_conservation"] == "pass"
    assert result.statuses["customer_ingestion_metadata"] == "pass"
    return project


def test_mart_counts_equal_counts_from_the_corpus(built):
    mart = built.rows("select * from main.mart_data_quality")
    assert len({r["run_id"] for r in mart}) == 1
    for table, spec in shop.BRONZE.items():
        entity = shop.ENTITY_OF[table]
        outcomes = [outcome(expect, "duckdb") for _, expect in spec["rows"]]
        places = Counter(e[0] for e in outcomes)
        failed = Counter(name for e in outcomes if e[0] != "deduped" for name in e[1])
        rows = {r["rule"]: r for r in mart if r["entity"] == entity}
        acct = rows.pop("(entity)")
        assert acct["disposition"] == "(entity)"
        assert acct["rows_evaluated"] == places["entity"] + places["reject"]
        assert acct["rows_quarantined"] == places["reject"]
        assert acct["rows_deduped"] == places["deduped"]
        assert acct["rows_failed"] == 0
        for rule, r in rows.items():
            assert r["rows_failed"] == failed.get(rule, 0), (entity, rule)
            assert (r["rows_evaluated"], r["rows_quarantined"], r["rows_deduped"]) == (0, 0, 0)
        assert set(failed) <= set(rows), "every fired rule has a mart row"
    # additivity: the entity-level sum of quarantined equals the rows in the reject tables
    total = built.query("select sum(rows_quarantined) from main.mart_data_quality")[0][0]
    rejects = sum(built.query(f'select count(*) from main."{e}__reject" where resolved_at is null')[0][0]
                  for e in shop.ENTITY_OF.values())
    assert total == rejects


def test_mart_keeps_a_history_of_runs(built):
    # a run of the quality nodes (each `<entity>__quality` appends its snapshot) is a run of history
    built.dbt("run", "--select", "mart_data_quality+")
    runs = built.query("select count(distinct run_id) from main.mart_data_quality")[0][0]
    assert runs == 2
    rate = built.rows("select * from main.quality_quarantine_rate where entity = 'customer'")
    assert len(rate) == 2 and all(abs(r["quality_quarantine_rate"] - 4 / 10) < 1e-9 for r in rate)


@pytest.mark.parametrize("bad_row, problem", [
    (("C50", "a@b.cd", "de", "2021-01-01", None, None, "2024-01-01 00:00:00", "c-50"), "_load_id is null"),
    (("C51", "a@b.cd", "de", "2021-01-01", None, "l1", None, "c-51"), "_ingested_at is null"),
    (("C52", "a@b.cd", "de", "2021-01-01", None, "l1", "2024-01-01 00:00:00", None), "_source_row_id is null"),
    (("C53", "a@b.cd", "de", "2021-01-01", None, "l1", "yesterday-ish", "c-53"), "_ingested_at does not cast to timestamp"),
    (("C54", "a@b.cd", "de", "2021-01-01", None, "l1", "2024-01-01 00:00:00", "c-1"), "_source_row_id claimed by 2 keys"),
    # deliveries of C5 that lose dedupe to c-5b: bad metadata is bad on a loser too (a NULL
    # `_ingested_at` sorts last, so it would always lose quietly)
    (("C5", "a@b.cd", "be", "2021-01-01", None, "l1", None, "c-55"), "_ingested_at is null"),
    (("C5", "a@b.cd", "be", "2021-01-01", None, None, "2023-12-01 00:00:00", "c-56"), "_load_id is null"),
    (("C5", "a@b.cd", "be", "2021-01-01", None, "l1", "2023-12-01 00:00:00", None), "_source_row_id is null"),
])
def test_ingestion_metadata_audit_blocks_publication(tmp_path, bad_row, problem):
    project = DuckProject(tmp_path)
    load_shop(project, [bad_row])
    assert project.compile() == 0
    result = project.dbt("build", check=False)
    assert result.statuses["customer_ingestion_metadata"] == "fail"
    for node in ("customer", "customer__reject", "order__staged", "order", "customer__quality", "order__quality"):
        assert result.statuses[node] == "skipped", node
    stored = project.rows("select * from main_dbt_test__audit.customer_ingestion_metadata")
    assert [r["problem"] for r in stored] == [problem] * len(stored) and stored


def test_a_full_refresh_keeps_the_history_of_runs(tmp_path):
    project = DuckProject(tmp_path)
    load_shop(project)
    assert project.compile() == 0
    project.dbt("build")
    project.dbt("build", "--full-refresh")
    assert project.query("select count(distinct run_id) from main.mart_data_quality")[0][0] == 2


def test_rows_diverted_past_their_retention_are_kept_until_the_next_run(tmp_path):
    """Bronze delivered long before the run: its diverted rows are already older than the
    customer's 30-day retention. The build that diverts them keeps them (the reject table and the
    conservation audit account for them); the next build, which does not judge them again
    (an incremental one), purges them."""
    project = DuckProject(tmp_path)
    project.materialize("incremental_by_key")
    load_shop(project)
    assert project.compile() == 0
    later = ("--vars", "{bloomery_now: '2030-01-01 00:00:00'}")
    result = project.dbt("build", *later)
    assert result.statuses["customer_conservation"] == "pass"
    rejects = "select _source_row_id from main.customer__reject where resolved_at is null"
    assert {r[0] for r in project.query(rejects)} == {"c-3", "c-4", "c-8", "c-9b"}
    new = [("C60", "c60@example.com", "de", "2021-01-01", None, "l3", "2024-03-01 00:00:00", "c-60")]
    project.write_bronze("crm__customers", shop.CUSTOMERS["columns"], new, append=True)
    result = project.dbt("build", *later)
    assert result.statuses["customer_conservation"] == "pass"
    assert project.query(rejects) == []
    assert project.query("select count(*) from main.customer where _source_row_id = 'c-60'")[0][0] == 1


def test_conservation_audit_fails_when_a_row_goes_missing(built):
    with built.connect() as con:
        con.execute("delete from main.customer__reject where _source_row_id = 'c-3'")
    result = built.dbt("test", "--select", "customer_conservation", check=False)
    assert result.statuses["customer_conservation"] == "fail"
    assert built.query("select route from main.customer__ledger where _source_row_id = 'c-3'") == [("quarantine",)]
    # a full refresh judges every bronze row again: the row is diverted again (the reject table
    # keeps its history through a full refresh, so only the missing row is written)
    built.dbt("build", "--full-refresh", "--select", "customer__staged+", "--exclude", "order+ order_item+")
    assert built.dbt("test", "--select", "customer_conservation").statuses["customer_conservation"] == "pass"


def test_source_freshness_pass_warn_error(tmp_path):
    project = DuckProject(tmp_path)
    load_shop(project)
    assert project.compile() == 0
    project.dbt("build")
    now = "now()::timestamp"
    for age, expected in (("1 hour", "pass"), ("12 hours", "warn"), ("3 days", "error")):
        with project.connect() as con:
            con.execute(f"update main.shop__orders set _ingested_at = cast({now} - interval '{age}' as varchar)")
        result = project.dbt("source", "freshness", "--select", "source:bronze.shop__orders", check=False)
        assert list(result.statuses.values()) == [expected], age
