"""A bronze relation without a column the entity reads stops its `__staged` model with the relation,
the column and the fix (bloomery.assert_bronze_columns), not with the engine's binder error; on
DuckDB and PostgreSQL. DuckDB matches a column name in any case, PostgreSQL only in the case the
package quotes, and the message says so."""
from __future__ import annotations

import pytest

from .corpus_checks import load_shop, shop
from .harness import ENGINES, DuckProject, PgProject, engine_project, load_logs

META = ["_load_id", "_ingested_at", "_source_row_id"]


def _without(project, table: str, drop: str | None = None, rename: tuple[str, str] | None = None):
    """Land the shop, then rewrite `table` without the column `drop` (or with it renamed)."""
    load_shop(project)
    spec = shop.BRONZE[table]
    columns = list(spec["columns"])
    keep = [i for i, c in enumerate(columns) if c != drop]
    if rename:
        columns = [rename[1] if c == rename[0] else c for c in columns]
    project.write_bronze(table, [columns[i] for i in keep], [tuple(v[i] for i in keep) for v, _ in spec["rows"]])


def _stopped(project, column: str, **without) -> str:
    """Land the shop with shop__orders `_without` a column: `order__staged` stops, and only it, before
    the engine sees the query; dbt's log, where the message is."""
    _without(project, "shop__orders", **without)
    model = "order__staged"
    assert project.compile() == 0
    result = project.dbt("build", check=False)
    assert not result.success
    assert result.statuses[model] == "error", result.statuses
    assert result.statuses.get(model.replace("__staged", ""), "skipped") == "skipped"
    log = load_logs(project)
    # the engine never saw the query (DuckDB's binder, PostgreSQL's parser)
    assert "Referenced column" not in log and f'column "{column}" does not exist' not in log
    return log


@pytest.fixture(params=ENGINES)
def project(request, tmp_path):
    return engine_project(request.param, tmp_path, request)


def test_missing_metadata_column(project):
    log = _stopped(project, "_ingested_at", drop="_ingested_at")
    assert "bloomery: entity order can not be judged: its bronze is missing a column." in log
    assert '"main"."shop__orders" has no column "_ingested_at"' in log
    assert "ingestion metadata that entity order needs because it deduplicates or quarantines" in log
    assert "have the loader write `_ingested_at`" in log
    # other entities are judged as usual
    result_customers = project.query("select count(*) from main.customer")[0][0]
    assert result_customers > 0


def test_missing_mapped_column(project):
    log = _stopped(project, "state", drop="state")
    assert '"shop__orders" has no column "state"' in log
    assert "mapping shop__orders->order reads it (status: from $.state)" in log
    assert "add the column to the relation, or point `from:` at one it has and run `bloomery compile` again" in log


@pytest.mark.duckdb
def test_duckdb_matches_a_column_in_another_case(tmp_path):
    project = DuckProject(tmp_path)
    _without(project, "shop__orders", rename=("_ingested_at", "_Ingested_At"))
    assert project.compile() == 0
    assert project.dbt("build").success


@pytest.mark.postgres
def test_postgres_names_the_column_in_another_case(pg_server, tmp_path):
    project = PgProject(tmp_path, pg_server)
    log = _stopped(project, "_ingested_at", rename=("_ingested_at", "_Ingested_At"))
    assert '"shop__orders" has no column "_ingested_at"' in log
    assert 'it has "_Ingested_At"' in log and "compares quoted names exactly" in log
