"""Incremental runs on DuckDB: loads in sequence equal one full build; the same load twice and a
full refresh change nothing; a late load with older timestamps is not skipped. The entities are
declared `incremental_by_key` (undeclared, they are `full`: every build judges all of bronze);
the one-build reference is left `full`."""
from __future__ import annotations

import sys

import pytest

from .corpus_checks import build_batches, load_batches, table_multisets
from .harness import INTEGRATION, DuckProject

sys.path.insert(0, str(INTEGRATION))
from corpus import shop  # noqa: E402

pytestmark = pytest.mark.duckdb
ENTITIES = ("customer", "order", "order_item")


def snapshot(project: DuckProject) -> dict:
    """Multiset of rows per table (unresolved rejects only: superseded ones are history)."""
    return table_multisets(project, ENTITIES,
                           'select * exclude (resolved_at) from main."{e}__reject" where resolved_at is null')


def incremental_project(tmp) -> DuckProject:
    project = DuckProject(tmp)
    project.materialize("incremental_by_key")
    return project


@pytest.fixture(scope="module")
def full(tmp_path_factory):
    return build_batches(DuckProject(tmp_path_factory.mktemp("full")), {"l1", "l2"})


@pytest.fixture(scope="module")
def incremental(tmp_path_factory):
    return build_batches(incremental_project(tmp_path_factory.mktemp("incremental")), {"l1"}, {"l2"})


def test_two_loads_equal_one_full_build(full, incremental):
    assert snapshot(incremental) == snapshot(full)


def test_superseded_rejects_are_resolved_not_deleted(incremental):
    # c-9a was kept in load 1 and lost its key to the corrupt c-9b in load 2; i-9a likewise
    assert incremental.query("select count(*) from main.customer where _source_row_id = 'c-9a'")[0][0] == 0
    assert incremental.query("select count(*) from main.customer__reject where _source_row_id = 'c-9b' and resolved_at is null")[0][0] == 1


def test_rerun_and_full_refresh_change_nothing(incremental):
    before = snapshot(incremental)
    incremental.dbt("build")
    assert snapshot(incremental) == before
    incremental.dbt("build", "--full-refresh")
    assert snapshot(incremental) == before


def test_late_load_with_older_timestamps_is_not_skipped(tmp_path):
    project = incremental_project(tmp_path)
    load_batches(project, {"l1", "l2"})
    assert project.compile() == 0
    project.dbt("build")
    late = [("C11", "late@example.com", "lu", "2020-01-01", None, "l3", "2023-12-31 00:00:00", "c-11"),
            ("C12", "late@example.com", "LUX", "2020-01-01", None, "l3", "2023-12-31 00:00:00", "c-12")]
    project.write_bronze("crm__customers", shop.CUSTOMERS["columns"], late, append=True)
    project.dbt("build")
    assert project.query("select count(*) from main.customer where _source_row_id = 'c-11'")[0][0] == 1
    assert project.query("select count(*) from main.customer__reject where _source_row_id = 'c-12'")[0][0] == 1


def test_redelivery_keeps_first_seen(tmp_path):
    project = incremental_project(tmp_path)
    load_batches(project, {"l1", "l2"})
    assert project.compile() == 0
    project.dbt("build")
    before = project.rows("select * from main.customer__reject where _source_row_id = 'c-4'")[0]
    again = [("C4", "c4@example.com", "nl", "2021-02-30", None, "l9", "2024-03-01 00:00:00", "c-4")]
    project.write_bronze("crm__customers", shop.CUSTOMERS["columns"], again, append=True)
    project.dbt("build")
    after = project.rows("select * from main.customer__reject where _source_row_id = 'c-4'")
    assert len(after) == 1
    assert after[0]["reject_id"] == before["reject_id"]
    assert after[0]["first_seen"] == before["first_seen"]
    assert str(after[0]["last_seen"]) == "2024-03-01 00:00:00"
    assert after[0]["_load_id"] == "l9"


def test_a_batch_the_ledger_has_not_recorded_is_judged_again(tmp_path):
    """The ledger is the entity's kept rows and the rest table its node writes in the same
    transaction: a run stopped before the entity (here, after the staged model and the reject
    table) leaves its batch unrecorded, and the next run judges it again; once the entity node
    committed, the batch is recorded, and a recorded batch is never judged again."""
    project = incremental_project(tmp_path)
    load_batches(project, {"l1", "l2"})
    assert project.compile() == 0
    project.dbt("build")
    staged = "select _source_row_id from main.customer__staged"
    recorded = "select _source_row_id from main.customer__ledger where _source_row_id in ('c-13', 'c-14', 'c-15')"
    one = [("C13", "c13@example.com", "lu", "2020-01-01", None, "l4", "2024-06-01 00:00:00", "c-13")]
    project.write_bronze("crm__customers", shop.CUSTOMERS["columns"], one, append=True)
    project.dbt("run", "--select", "customer__staged", "customer__reject")      # as if killed before the entity
    assert project.query(recorded) == []
    two = [("C14", "c14@example.com", "lu", "2020-01-01", None, "l5", "2024-06-02 00:00:00", "c-14")]
    project.write_bronze("crm__customers", shop.CUSTOMERS["columns"], two, append=True)
    project.dbt("run", "--select", "customer__staged", "customer__reject", "customer")   # ... stopped after the entity
    assert {r[0] for r in project.query(staged)} == {"c-13", "c-14"}
    assert sorted(project.query(recorded)) == [("c-13",), ("c-14",)]
    three = [("C15", "c15@example.com", "lu", "2020-01-01", None, "l6", "2024-06-03 00:00:00", "c-15")]
    project.write_bronze("crm__customers", shop.CUSTOMERS["columns"], three, append=True)
    project.dbt("build")          # recorded batches are not judged again, whatever their timestamps
    assert {r[0] for r in project.query(staged)} == {"c-15"}
    assert sorted(project.query(recorded)) == [("c-13",), ("c-14",), ("c-15",)]
    assert project.query("select count(*) from main.customer where _source_row_id in ('c-13', 'c-14', 'c-15')")[0][0] == 3


@pytest.mark.parametrize("ingested_at", [None, "not a time"])
def test_a_row_without_a_usable_timestamp_is_in_every_batch(tmp_path, ingested_at):
    """A row whose `_ingested_at` is NULL or does not cast is judged by the next run even when its
    load was seen, so the ingestion-metadata audit sees it and stops the run before publishing."""
    project = incremental_project(tmp_path)
    load_batches(project, {"l1", "l2"})
    assert project.compile() == 0
    project.dbt("build")
    bad = [("C16", "c16@example.com", "lu", "2020-01-01", None, "l1", ingested_at, "c-16")]
    project.write_bronze("crm__customers", shop.CUSTOMERS["columns"], bad, append=True)
    result = project.dbt("build", check=False)
    assert not result.success
    assert project.query("select count(*) from main.customer__staged where _source_row_id = 'c-16'")[0][0] == 1
    assert project.query("select count(*) from main.customer where _source_row_id = 'c-16'")[0][0] == 0


def test_a_row_without_a_key_is_replaced_when_judged_again(tmp_path):
    """A kept row whose key is NULL is its own dedupe group: when a later run judges it again (here
    its source row is delivered again), the entity's copy is found by its source row id and
    replaced, not duplicated. A build with nothing new does not judge it at all."""
    project = incremental_project(tmp_path)
    load_batches(project, {"l1", "l2"})
    assert project.compile() == 0
    project.dbt("build")
    keyless = [(None, "nk@example.com", "lu", "2020-01-01", None, "l7", "2024-07-01 00:00:00", "c-nk")]
    project.write_bronze("crm__customers", shop.CUSTOMERS["columns"], keyless, append=True)
    count = "select count(*) from main.customer where _source_row_id = 'c-nk' and customer_id is null"
    project.dbt("build")
    assert project.query(count)[0][0] == 1
    project.dbt("build")
    assert project.query("select count(*) from main.customer__staged where _source_row_id = 'c-nk'")[0][0] == 0
    again = [(None, "nk2@example.com", "lu", "2020-01-01", None, "l8", "2024-07-02 00:00:00", "c-nk")]
    project.write_bronze("crm__customers", shop.CUSTOMERS["columns"], again, append=True)
    project.dbt("build")
    assert project.query("select count(*) from main.customer__staged where _source_row_id = 'c-nk'")[0][0] == 2
    assert project.query(count)[0][0] == 1
    assert project.query("select email from main.customer where _source_row_id = 'c-nk'") == [("nk2@example.com",)]


@pytest.mark.parametrize("bronze", ["a table with a rowid column", "a view"])
def test_a_batch_is_picked_exactly_from_any_bronze_relation(tmp_path_factory, bronze):
    """On DuckDB a batch is read from a bronze table by row id. A view has no row ids, and a
    bronze column named `rowid` hides them (here the new row shares its value with C5's oldest
    delivery): the batch must still be exactly the rows a full build would judge together."""
    late = ("C20", "c20@example.com", "lu", "2020-01-01", None, "l3", "2024-08-01 00:00:00", "c-20")

    def write(project, loads, extra=(), append=False):
        for table, spec in shop.BRONZE.items():
            rows = [v for v, _ in spec["rows"] if v[-3] in loads] + (list(extra) if table == "crm__customers" else [])
            columns = spec["columns"]
            if table == "crm__customers" and bronze.startswith("a table"):
                columns = columns + ["rowid"]
                rows = [r + ("999" if r[-1] in ("c-5a", "c-20") else str(n),) for n, r in enumerate(rows, start=1 if not append else 100)]
            stored = table + "_stored" if bronze == "a view" else table
            project.write_bronze(stored, columns, rows, append=append)
            if bronze == "a view" and not append:
                project.query(f'create view main."{table}" as select * from main."{stored}"')

    full = DuckProject(tmp_path_factory.mktemp("full"))
    write(full, {"l1", "l2"}, [late])
    assert full.compile() == 0
    full.dbt("build")
    incremental = incremental_project(tmp_path_factory.mktemp("incremental"))
    write(incremental, {"l1", "l2"})
    assert incremental.compile() == 0
    incremental.dbt("build")
    write(incremental, set(), [late], append=True)
    incremental.dbt("build")
    assert incremental.query("select email from main.customer where customer_id = 'C5'") == [("new@example.com",)]
    assert snapshot(incremental) == snapshot(full)
