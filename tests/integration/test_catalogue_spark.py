"""Every field rule and transform on Spark (parquet tables, local session): the same checks as on
DuckDB and PostgreSQL (corpus_checks.py), with the engine's own expectation where the corpus gives
one per engine. Run with `make test-spark`."""
from __future__ import annotations

import pytest

from .corpus_checks import CATALOGUE, CatalogueChecks, catalogue_project

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def new_project():
    from .spark import SparkProject
    return lambda tmp, **bronze: catalogue_project(SparkProject(tmp, specs=CATALOGUE / "specs"), **bronze)


@pytest.fixture(scope="module")
def built(tmp_path_factory, new_project):
    project = new_project(tmp_path_factory.mktemp("catalogue_spark"))
    project.dbt("build")
    return project


class TestCatalogueSpark(CatalogueChecks):
    pass
