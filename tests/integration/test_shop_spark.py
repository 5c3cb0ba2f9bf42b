"""The shop corpus end to end on Spark (parquet tables, local session): the same row-by-row checks
as on DuckDB and PostgreSQL (corpus_checks.py), with the engine's own expectation where the corpus
gives one per engine. Run with `make test-spark`."""
from __future__ import annotations

import pytest

from .corpus_checks import ShopChecks, load_shop

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    from .spark import SparkProject
    project = SparkProject(tmp_path_factory.mktemp("shop_spark"))
    load_shop(project)
    assert project.compile() == 0
    project.dbt("build")
    return project


class TestShopSpark(ShopChecks):
    pass
