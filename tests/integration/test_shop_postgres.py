"""The shop corpus end to end on PostgreSQL >= 16: the same row-by-row checks as on DuckDB
(corpus_checks.py), with the engine's own expectation where the corpus gives one per engine."""
from __future__ import annotations

import pytest

from .corpus_checks import ShopChecks, load_shop
from .harness import PgProject

pytestmark = pytest.mark.postgres


@pytest.fixture(scope="module")
def built(tmp_path_factory, pg_server):
    project = PgProject(tmp_path_factory.mktemp("shop_pg"), pg_server)
    load_shop(project)
    assert project.compile() == 0
    project.dbt("build")
    return project


class TestShopPostgres(ShopChecks):
    pass
