"""Session fixtures for the engine tests. One PostgreSQL server per session, started on first use
(so `-m duckdb` never starts one) and stopped at the end."""
from __future__ import annotations

import pytest

# the shared corpus checks are plain modules: have pytest explain their failed asserts too
pytest.register_assert_rewrite("tests.integration.corpus_checks")

from . import pg  # noqa: E402


@pytest.fixture(scope="session")
def pg_server():
    """Connection settings of a PostgreSQL >= 16 server: the one in BLOOMERY_PG_HOST if set,
    else a fresh cluster from .pg/ (scripts/postgres.sh)."""
    settings = pg.external_server()
    if settings is not None:
        pg.require_supported(settings)
        yield settings
        return
    bindir = pg.find_bindir()
    if bindir is None:
        pytest.fail(f"no PostgreSQL >= 16 binaries found in .pg/ or BLOOMERY_PG_BIN: {pg.INSTALL_HINT}; "
                    "or point BLOOMERY_PG_HOST at a running server; or deselect with -m 'not postgres'",
                    pytrace=False)
    server = pg.PgServer(bindir)
    try:
        settings = server.start()
        pg.require_supported(settings)
        yield settings
    finally:
        server.stop()
