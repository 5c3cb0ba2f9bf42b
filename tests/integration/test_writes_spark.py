"""Every write that changes rows already written, on Spark's parquet tables (no DELETE, UPDATE or
MERGE there; macros/adapters/spark/writes.sql rewrites instead): incremental loads equal one full build,
replay admits and re-stamps, retention purges, and none of it appends silently. Run with
`make test-spark`."""
from __future__ import annotations

from collections import Counter

import pytest

from .corpus_checks import build_batches, load_batches

pytestmark = pytest.mark.spark
ENTITIES = ("customer", "order", "order_item")
WIDEN = ("completed, completed]", "completed, completed, cancelled, completed, canceled, completed]")


def _project(tmp):
    from .spark import SparkProject
    return SparkProject(tmp)


def snapshot(project) -> dict:
    """Multiset of rows per table (unresolved rejects only, without resolved_at: superseded ones are history)."""
    out = {}
    for e in ENTITIES:
        out[e] = Counter(map(repr, project.query(f'select * from main."{e}"')))
        rows = project.rows(f'select * from main."{e}__reject" where resolved_at is null')
        out[e + "__reject"] = Counter(repr(sorted((k, v) for k, v in r.items() if k != "resolved_at")) for r in rows)
    return out


def _no_side_tables(project):
    names = {r[1] for r in project.sql(f"show tables in `{project.schema}`").collect()}
    assert not {n for n in names if "__bloomery_" in n or n.startswith("bloomery_replay_")}, names


@pytest.fixture(scope="module")
def full(tmp_path_factory):
    return build_batches(_project(tmp_path_factory.mktemp("full_spark")), {"l1", "l2"})


@pytest.fixture(scope="module")
def incremental(tmp_path_factory):
    project = _project(tmp_path_factory.mktemp("incremental_spark"))
    project.materialize("incremental_by_key")   # l2 is an incremental batch (undeclared: `full`)
    return build_batches(project, {"l1"}, {"l2"})


def test_two_loads_equal_one_full_build(full, incremental):
    assert snapshot(incremental) == snapshot(full)
    _no_side_tables(incremental)


def test_superseded_rejects_are_resolved_not_deleted(incremental):
    # c-9a was kept in load 1 and lost its key to the corrupt c-9b in load 2
    rows = {r["_source_row_id"]: r for r in incremental.rows("select * from main.customer__reject")}
    assert rows["c-9b"]["resolved_at"] is None
    assert incremental.query("select count(*) from main.customer where _source_row_id = 'c-9a'")[0][0] == 0


def test_same_load_again_changes_nothing(incremental):
    before = snapshot(incremental)
    incremental.dbt("build")
    assert snapshot(incremental) == before
    # one snapshot per run in the mart, no run doubled
    runs = incremental.query("select run_id, count(*) from main.mart_data_quality group by run_id")
    assert len(runs) == 3 and len({n for _, n in runs}) == 1


def test_replay_admits_restamps_and_never_deletes(tmp_path):
    older = [("O20", "C1", "Canceled", "2023-06-01T00:00:00", "l0", "2023-12-01 00:00:00", "o-20"),
             ("O21", "C1", "cancelld", "2023-06-01T00:00:00", "l0", "2023-12-01 00:00:00", "o-21")]
    project = _project(tmp_path)
    load_batches(project, {"l1", "l2"}, extra_orders=older)
    assert project.compile() == 0
    project.dbt("build")
    unresolved = {r[0] for r in project.query("select _source_row_id from main.order__reject where resolved_at is null")}
    assert {"o-3", "o-20", "o-21"} <= unresolved
    entity_rows = project.query("select count(*) from main.order")[0][0]

    path = project.dir / "specs" / "mapping_orders.yaml"
    path.write_text(path.read_text().replace(*WIDEN))
    assert project.compile() == 0
    project.dbt("run-operation", "bloomery.replay", "--args", "{entity: order}")

    kept = {r[0]: r[1] for r in project.query("select _source_row_id, status from main.order")}
    assert kept["o-3"] == "completed" and kept["o-20"] == "completed"
    assert len(kept) == entity_rows + 2, "admitted rows replace nothing else"
    rejects = {r["_source_row_id"]: r for r in project.rows("select * from main.order__reject")}
    assert rejects["o-3"]["resolved_at"] is not None and rejects["o-20"]["resolved_at"] is not None
    assert rejects["o-21"]["resolved_at"] is None and list(rejects["o-21"]["failed_rules"]) == ["status_in_enum"]
    assert rejects["o-21"]["last_evaluated_at"] is not None
    assert str(rejects["o-20"]["last_seen"]) == "2023-12-01 00:00:00"
    assert len(rejects) == len(unresolved), "replay never deletes"
    assert {k for k, r in rejects.items() if r["resolved_at"] is None} == unresolved - {"o-3", "o-20"}
    _no_side_tables(project)

    before = (sorted(map(repr, project.query('select * from main."order"'))),
              sorted(map(repr, project.query("select * from main.order__reject"))))
    project.dbt("run-operation", "bloomery.replay", "--args", "{entity: order}")
    after = (sorted(map(repr, project.query('select * from main."order"'))),
             sorted(map(repr, project.query("select * from main.order__reject"))))
    assert after == before, "a second replay with nothing to admit changes no row"

    # and the next build leaves the replayed rows where replay put them
    project.dbt("build")
    assert project.query("select count(*) from main.order where _source_row_id in ('o-3', 'o-20')")[0][0] == 2


def test_purge_deletes_only_what_retention_allows(full):
    assert {r[0] for r in full.query("select _source_row_id from main.customer__reject")} == {"c-3", "c-4", "c-8", "c-9b"}
    # customer retention is 30d: on 2024-01-31 12:00 only rows last seen 2024-01-01 are past it
    full.dbt("run-operation", "bloomery.purge_rejects", "--args", "{entity: customer}",
             "--vars", "{bloomery_now: '2024-01-31 12:00:00'}")
    assert {r[0] for r in full.query("select _source_row_id from main.customer__reject")} == {"c-9b"}
    assert full.query("select count(*) from main.customer")[0][0] == 6
    _no_side_tables(full)
