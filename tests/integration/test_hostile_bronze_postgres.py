"""The hostile bronze of test_hostile_bronze_duckdb.py on PostgreSQL: the build succeeds, every
row lands in the entity or the reject table, and a payload that is not JSON (which the jsonb cast
would raise on) is a coercion failure."""
from __future__ import annotations

import pytest

from . import test_hostile_bronze_duckdb as duck
from .harness import PgProject

pytestmark = pytest.mark.postgres


def test_hostile_bronze_lands(pg_server, tmp_path):
    project = PgProject(tmp_path, pg_server)
    project.rows_written = duck.bronze()
    for table, rows in project.rows_written.items():
        project.write_bronze(table, duck.shop.BRONZE[table]["columns"], rows)
    assert project.compile() == 0
    result = project.dbt("build", check=False)
    assert result.success, {k: v for k, v in result.statuses.items() if v not in ("success", "pass")}
    duck.placed(project)
    rejected = {r["_source_row_id"]: list(r["failed_rules"]) for r in project.rows(
        "select _source_row_id, failed_rules from main.order_item__reject where resolved_at is null")}
    for sid in (f"i-j{i}" for i in range(len(duck.NOT_JSON))):
        assert "order_id_coercible" in rejected.get(sid, []), (sid, rejected.get(sid))


def test_a_json_path_step_on_a_document_that_does_not_parse_gives_null(pg_server, tmp_path):
    duck.json_path_lands(PgProject(tmp_path, pg_server, duck.json_path_specs(tmp_path)))
