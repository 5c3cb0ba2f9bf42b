"""`bloomery plan` end to end on DuckDB: relax a quarantine rule to flag, run the commands the
plan names, in its order, and find every relaxed row back in the entity.

Bronze keeps a window, not history: one of the relaxed rows is deleted from bronze before the
change, so only the replay can bring it back, and a backfill alone would leave it quarantined.
"""
from __future__ import annotations

import json
import shlex
import sys

import pytest

from bloomery.cli import main as bloomery_main

from .harness import INTEGRATION, DuckProject

sys.path.insert(0, str(INTEGRATION))
from corpus import shop  # noqa: E402

pytestmark = pytest.mark.duckdb

RELAX = ("{rule: in_enum, on_fail: quarantine}", "{rule: in_enum, on_fail: flag}")


def _plan(project, capsys) -> dict:
    capsys.readouterr()
    code = bloomery_main(["plan", "--new", str(project.dir / "specs"),
                          "--against-compiled", str(project.dir / "models" / "bloomery"), "--format", "json"])
    out = capsys.readouterr().out
    assert code == 0, out
    return json.loads(out)


def test_relaxing_quarantine_to_flag_brings_rows_back(tmp_path, capsys):
    project = DuckProject(tmp_path)
    # a row that ages out of bronze stays published only where the entity keeps history: a `full`
    # entity is rebuilt from bronze alone, so the walkthrough is about incremental entities
    project.materialize("incremental_by_key")
    for table, spec in shop.BRONZE.items():
        project.write_bronze(table, spec["columns"], [v for v, _ in spec["rows"]])
    assert project.compile() == 0
    project.dbt("build")
    held = "select _source_row_id from main.order__reject where resolved_at is null"
    assert {"o-3", "o-12"} <= {r[0] for r in project.query(held)}
    # o-12 ages out of bronze's window: from now on only its reject row holds it
    project.execute("delete from main.shop__orders where _source_row_id = 'o-12'")
    runs_before = project.query("select count(distinct run_id) from main.mart_data_quality")[0][0]

    assert _plan(project, capsys)["changes"] == [], "nothing changed since the last compile"

    mapping = project.dir / "specs" / "mapping_orders.yaml"
    assert mapping.read_text().count(RELAX[0]) == 1
    mapping.write_text(mapping.read_text().replace(*RELAX))
    plan = _plan(project, capsys)   # before compiling: the snapshot is the deployed state
    assert plan["changes"] == [{"subject": "quality:order.status_in_enum", "class": "restating",
                                "detail": "disposition quarantine -> flag; replay: rows it quarantined are now "
                                          "kept with a flag"}]
    assert plan["replay_scope"] == ["order"]
    assert plan["backfill_scope"]["entities"] == ["order", "order_item"]
    assert plan["backfill_scope"]["restates_history"] is True
    assert "'__unknown__' rewrite" in plan["backfill_scope"]["limits"]["order_item"]
    replay = "dbt run-operation bloomery.replay --args '{entity: order}'"
    assert plan["commands"][0].startswith("dbt build --full-refresh --select order__staged+")
    assert plan["commands"].index(replay) == 1

    assert project.compile() == 0
    for i, command in enumerate(plan["commands"]):
        argv = shlex.split(command)
        assert argv[0] == "dbt"
        project.dbt(*argv[1:])
        if i == 0:
            # the backfill alone frees what bronze still holds, and leaves o-12 quarantined
            kept = {r[0] for r in project.query("select _source_row_id from main.order")}
            assert "o-3" in kept and "o-12" not in kept

    kept = {r["_source_row_id"]: r for r in project.rows("select * from main.order")}
    for row_id in ("o-3", "o-12"):
        assert row_id in kept, f"{row_id} is back in the entity"
        assert list(kept[row_id]["_quality_flags"]) == ["status_in_enum"]
    rejects = {r["_source_row_id"]: r for r in project.rows("select * from main.order__reject")}
    assert rejects["o-3"]["resolved_at"] is not None and rejects["o-12"]["resolved_at"] is not None
    # rows held for other reasons stay held
    still = {r[0] for r in project.query(held)}
    assert {"o-4", "o-5", "o-6", "o-8", "o-10", "o-11"} <= still and not {"o-3", "o-12"} & still
    # the unknown_member child was rebuilt against the returned parent: O3's line finds its order
    item = project.rows("select order_id, _quality_flags from main.order_item where _source_row_id = 'i-11'")
    assert item == [{"order_id": "O3", "_quality_flags": []}]
    # the quality mart kept its history: the backfill left it out of the full refresh
    assert project.query("select count(distinct run_id) from main.mart_data_quality")[0][0] > runs_before

    # the new state is the compiled one: nothing more to do
    assert _plan(project, capsys)["changes"] == []
