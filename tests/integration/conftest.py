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


@pytest.fixture(scope="module", autouse=True)
def _dbt_artifacts(request):
    """A module marked `dbt_artifacts` reads what dbt leaves in target/ and logs/ (run_results.json
    for `bloomery summary`, the manifest, debug lines): its projects write them as a user's run
    does. Module-scoped and autouse, so a module-scoped project fixture is built that way too."""
    if request.node.get_closest_marker("dbt_artifacts") is None:
        yield
        return
    from .harness import _Project
    _Project.artifacts = True
    try:
        yield
    finally:
        _Project.artifacts = False


# The longest modules first: `make test`'s two workers take whole modules in collection order
# (`--dist loadfile`), and the property test's modules (minutes each, alphabetically mid-suite)
# started last left one worker idle for up to five minutes at the end of the run.
LONGEST_FIRST = ("test_conservation_property.py", "test_conservation_property_shares.py",
                 "test_conservation_property_postgres.py")


def pytest_collection_modifyitems(items):
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))   # stable: the rest keep their order
