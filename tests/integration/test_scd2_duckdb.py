"""A type 2 entity on DuckDB: history in a dbt snapshot, replay re-delivers to bronze."""
from __future__ import annotations

import json

import pytest

from .harness import INTEGRATION, DuckProject

SPECS = INTEGRATION / "corpus" / "scd2" / "specs"
COLUMNS = ["sku", "tier", "amount", "_load_id", "_ingested_at", "_source_row_id"]
# dbt_artifacts: run_results.json is read
pytestmark = [pytest.mark.duckdb, pytest.mark.dbt_artifacts]


def test_history_and_replay_through_bronze(tmp_path):
    project = DuckProject(tmp_path, specs=SPECS)
    project.materialize("incremental_by_key")   # the second load and replay's re-delivery are incremental batches
    project.write_bronze("erp__prices", COLUMNS, [
        ("S1", "std", "10.00", "l1", "2024-01-01 00:00:00", "r-1"),
        ("S2", "premium", "99.00", "l1", "2024-01-01 00:00:00", "r-2"),   # tier not in the enum yet
        ("S3", "premium", "n/a", "l1", "2024-01-01 00:00:00", "r-4"),     # and an amount that never casts
    ])
    assert project.compile() == 0
    project.dbt("build")
    project.write_bronze("erp__prices", COLUMNS, [("S1", "std", "12.00", "l2", "2024-01-02 00:00:00", "r-3")], append=True)
    project.dbt("build")
    versions = project.rows("select sku, amount, dbt_valid_to is null as current from main.price order by sku, dbt_valid_from")
    assert [(v["sku"], str(v["amount"]), v["current"]) for v in versions] == [("S1", "10.00", False), ("S1", "12.00", True)]
    assert project.query("select _source_row_id, failed_rules from main.price__reject where resolved_at is null "
                         "order by 1") == [("r-2", ["tier_in_enum"]), ("r-4", ["amount_coercible", "tier_in_enum"])]

    spec = SPECS / "mapping_prices.yaml"
    (project.dir / "specs" / "mapping_prices.yaml").write_text(
        spec.read_text().replace("standard, standard]", "standard, standard, premium, premium]"))
    assert project.compile() == 0
    project.dbt("run-operation", "bloomery.replay", "--args", "{entity: price}")
    # a row that still fails is re-stamped with the rules it fails now, as on a type 1 entity
    assert project.query("select failed_rules, last_evaluated_at is not null from main.price__reject "
                         "where _source_row_id = 'r-4'") == [(["amount_coercible"], True)]
    project.dbt("run-operation", "bloomery.replay", "--args", "{entity: price}")   # twice: delivers once
    assert "(type 2): 0 re-delivered" in (project.dir / "logs" / "dbt.log").read_text()
    delivered = project.rows("select * from main.erp__prices where _load_id = '__replay__'")
    assert [(d["sku"], d["_source_row_id"]) for d in delivered] == [("S2", "r-2")]
    assert project.query("select resolved_at from main.price__reject where _source_row_id = 'r-2'") == [(None,)]

    project.dbt("build")
    current = project.rows("select * from main.price where sku = 'S2' and dbt_valid_to is null")
    assert len(current) == 1 and current[0]["tier"] == "premium" and current[0]["dbt_valid_from"] is not None
    assert project.query("select resolved_at is not null from main.price__reject where _source_row_id = 'r-2'") == [(True,)]
    # the last build's snapshot (run ids are random: the run is picked by the build's own id):
    # S1 and S2 current, r-4 held; r-1 lost its key to r-3, and r-2's first delivery to replay's
    last = json.loads((project.dir / "target" / "run_results.json").read_text())["metadata"]["invocation_id"]
    mart = project.rows("select * from main.mart_data_quality where rule = '(entity)' "
                        f"and run_id = '{last}'")
    assert len(mart) == 1 and mart[0]["rows_deduped"] == 2 and mart[0]["rows_evaluated"] == 3
