"""The shop corpus end to end on DuckDB: every bronze row lands where its expected disposition says
(the checks are in corpus_checks.py, shared with PostgreSQL)."""
from __future__ import annotations

import pytest

from .corpus_checks import ShopChecks, load_shop
from .harness import DuckProject

pytestmark = pytest.mark.duckdb


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    project = DuckProject(tmp_path_factory.mktemp("shop"))
    load_shop(project)
    assert project.compile() == 0
    project.dbt("build")
    return project


class TestShopDuckdb(ShopChecks):
    pass
