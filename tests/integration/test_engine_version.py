"""A server bloomery can not run on is refused before any model runs, with a message that names
the version and what it lacks: the check with a faked version number, and (where the machine has
the distribution's PostgreSQL 15) against a real PostgreSQL 15 server."""
from __future__ import annotations

from pathlib import Path

import pytest

from . import pg
from .harness import DuckProject, PgProject, load_logs

PG15_BIN = Path("/usr/lib/postgresql/15/bin")


PG_MISSING = ("bloomery needs PostgreSQL 16 or newer: this server is PostgreSQL 15.8", "pg_input_is_valid()")
DUCKDB_MISSING = ("bloomery needs DuckDB 1.3 or newer: this database is DuckDB v1.2.3", "lambda x:")


@pytest.mark.duckdb
@pytest.mark.parametrize("engine, version_num, version, missing", [
    ("postgres", 150008, "15.8", PG_MISSING), ("postgres", 160000, "16.0", None), ("postgres", 180006, "18.6", None),
    ("duckdb", 10203, "v1.2.3", DUCKDB_MISSING), ("duckdb", 10300, "v1.3.0", None)])
def test_version_check_names_the_version_and_what_is_missing(tmp_path, engine, version_num, version, missing):
    project = DuckProject(tmp_path)
    args = f"{{engine: {engine}, version_num: {version_num}, version: '{version}'}}"
    result = project.dbt("run-operation", "bloomery.check_engine_version", "--args", args, check=False)
    assert result.success == (missing is None)
    if missing:
        log = load_logs(project)
        for text in missing:
            assert text in log


@pytest.mark.duckdb
def test_the_embedded_duckdb_passes(tmp_path):
    assert DuckProject(tmp_path).dbt("run-operation", "bloomery.assert_engine_supported").success


@pytest.mark.duckdb
def test_other_engines_pass_the_check(tmp_path):
    project = DuckProject(tmp_path)
    assert project.dbt("run-operation", "bloomery.check_engine_version", "--args",
                       "{engine: trino, version_num: 1, version: '1.0'}").success


@pytest.mark.postgres
def test_the_session_server_passes(pg_server, tmp_path):
    project = PgProject(tmp_path, pg_server)
    assert project.dbt("run-operation", "bloomery.assert_engine_supported").success


@pytest.mark.postgres
@pytest.mark.skipif(not (PG15_BIN / "initdb").exists(), reason="no PostgreSQL 15 binaries on this machine")
def test_a_real_postgres_15_is_refused_before_any_model_runs(tmp_path):
    server = pg.PgServer(PG15_BIN)
    try:
        settings = server.start()
        assert settings.version_num < pg.MIN_VERSION_NUM
        project = PgProject(tmp_path, settings)
        project.write_bronze("crm__customers", ["id"], [])
        assert project.compile() == 0
        result = project.dbt("build", check=False)
        assert not result.success
        assert not any(status == "success" for status in result.statuses.values()), "no model may run"
        log = load_logs(project)
        assert f"bloomery needs PostgreSQL 16 or newer: this server is PostgreSQL {settings.version}" in log
        assert "which has no pg_input_is_valid()" in log
    finally:
        server.stop()
