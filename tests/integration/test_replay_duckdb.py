"""Replay on DuckDB: the enum-widening walkthrough, replay twice, superseded candidates."""
from __future__ import annotations

import json
import sys

import pytest

from .harness import INTEGRATION, DuckProject

sys.path.insert(0, str(INTEGRATION))
from corpus import shop  # noqa: E402

pytestmark = pytest.mark.duckdb

WIDEN = ("completed, completed]", "completed, completed, cancelled, completed, canceled, completed]")


def _build(tmp_path, extra_orders=()):
    project = DuckProject(tmp_path)
    for table, spec in shop.BRONZE.items():
        rows = [v for v, _ in spec["rows"]] + (list(extra_orders) if table == "shop__orders" else [])
        project.write_bronze(table, spec["columns"], rows)
    assert project.compile() == 0
    project.dbt("build")
    return project


def _widen_enum(project):
    path = project.dir / "specs" / "mapping_orders.yaml"
    path.write_text(path.read_text().replace(*WIDEN))
    assert project.compile() == 0


def _tables(project):
    return {t: sorted(map(repr, project.query(f'select * from main."{t}"'))) for t in ("order", "order__reject")}


def test_enum_widening_walkthrough(tmp_path):
    # an older order, quarantined for an unmapped state, and a misspelling that stays wrong
    older = [("O20", "C1", "Canceled", "2023-06-01T00:00:00", "l0", "2023-12-01 00:00:00", "o-20"),
             ("O21", "C1", "cancelld", "2023-06-01T00:00:00", "l0", "2023-12-01 00:00:00", "o-21")]
    project = _build(tmp_path, older)
    unresolved = {r[0] for r in project.query("select _source_row_id from main.order__reject where resolved_at is null")}
    assert {"o-3", "o-20", "o-21"} <= unresolved

    _widen_enum(project)
    project.dbt("run-operation", "bloomery.replay", "--args", "{entity: order}")

    kept = {r[0]: r[1] for r in project.query("select _source_row_id, status from main.order")}
    assert kept["o-3"] == "completed" and kept["o-20"] == "completed"
    rejects = {r["_source_row_id"]: r for r in project.rows("select * from main.order__reject")}
    assert rejects["o-3"]["resolved_at"] is not None and rejects["o-20"]["resolved_at"] is not None
    assert rejects["o-21"]["resolved_at"] is None and list(rejects["o-21"]["failed_rules"]) == ["status_in_enum"]
    assert rejects["o-21"]["last_evaluated_at"] is not None
    # replay never moves last_seen, never deletes
    assert str(rejects["o-20"]["last_seen"]) == "2023-12-01 00:00:00"
    assert len(rejects) == len(unresolved)
    # exactly the newly admissible rows came back: the others are still quarantined for their own reasons
    still = {k for k, r in rejects.items() if r["resolved_at"] is None}
    assert still == unresolved - {"o-3", "o-20"}

    before = _tables(project)
    project.dbt("run-operation", "bloomery.replay", "--args", "{entity: order}")
    assert _tables(project) == before, "a second replay with nothing to admit changes no row"


def test_two_rejects_resolving_to_one_key(tmp_path):
    twins = [("O30", "C1", "cancelled", "2023-06-01T00:00:00", "l0", "2023-12-01 00:00:00", "o-30a"),
             ("O30", "C1", "cancelled", "2023-06-02T00:00:00", "l0", "2023-12-02 00:00:00", "o-30b")]
    project = _build(tmp_path, twins)
    # the pipeline dedupes first: only the latest delivery reaches the reject table
    assert project.query("select count(*) from main.order__reject where _source_row_id like 'o-30%'")[0][0] == 1
    # a second, older delivery arriving later as its own reject: quarantined, then replayed
    with project.connect() as con:
        con.execute("""insert into main.order__reject
                       select '0' || reject_id, source_relation, mapping, mapping_version, failed_rules, key_values,
                              json_object('_ingested_at', '2023-11-30 00:00:00', '_load_id', 'l0', '_source_row_id', 'o-30z',
                                          'created', '2023-05-30T00:00:00', 'customer', 'C1', 'order_ref', 'O30', 'state', 'cancelled'),
                              'l0', '2023-11-30 00:00:00', 'o-30z', first_seen, last_seen, null, null
                       from main.order__reject where _source_row_id = 'o-30b'""")
    _widen_enum(project)
    project.dbt("run-operation", "bloomery.replay", "--args", "{entity: order}")
    assert project.query("select _source_row_id from main.order where order_id = 'O30'") == [("o-30b",)]
    rejects = {r["_source_row_id"]: r for r in project.rows("select * from main.order__reject where _source_row_id like 'o-30%'")}
    assert list(rejects["o-30z"]["failed_rules"]) == ["(superseded)"] and rejects["o-30z"]["resolved_at"] is not None
    assert rejects["o-30b"]["resolved_at"] is not None


def test_replay_unknown_entity_is_a_clear_error(tmp_path):
    project = _build(tmp_path)
    result = project.dbt("run-operation", "bloomery.replay", "--args", "{entity: nope}", check=False)
    assert not result.success
    log = (project.dir / "logs" / "dbt.log").read_text()
    assert "no reject table for entity 'nope'" in log


def test_purge_deletes_only_what_retention_allows(tmp_path):
    project = _build(tmp_path)
    before = {r[0] for r in project.query("select _source_row_id from main.customer__reject")}
    assert before == {"c-3", "c-4", "c-8", "c-9b"}
    # customer retention is 30d; bloomery_now puts the clock at 2024-02-01 12:00: rows last seen
    # on 2024-01-01 are 31.5 days old, c-9b (2024-01-02) is 30.5 days old
    project.dbt("run-operation", "bloomery.purge_rejects", "--args", "{entity: customer}",
                "--vars", "{bloomery_now: '2024-02-01 12:00:00'}")
    after = {r[0] for r in project.query("select _source_row_id from main.customer__reject")}
    assert after == set()
    project2 = _build(tmp_path / "second")
    project2.dbt("run-operation", "bloomery.purge_rejects", "--args", "{entity: customer}",
                 "--vars", "{bloomery_now: '2024-01-31 12:00:00'}")
    kept = {r[0] for r in project2.query("select _source_row_id from main.customer__reject")}
    assert kept == {"c-9b"}, "only rows past 30 days go; c-9b is 29.5 days old"
    # entity tables are never touched by a purge
    assert project2.query("select count(*) from main.customer")[0][0] == 6
