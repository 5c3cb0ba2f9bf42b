"""Every field rule and transform on DuckDB, plus an entity outside the quality system
(the checks are in corpus_checks.py, shared with PostgreSQL)."""
from __future__ import annotations

import pytest

from .corpus_checks import CATALOGUE, CatalogueChecks, catalogue_project
from .harness import DuckProject

pytestmark = pytest.mark.duckdb


@pytest.fixture(scope="module")
def new_project():
    return lambda tmp, **bronze: catalogue_project(DuckProject(tmp, specs=CATALOGUE / "specs"), **bronze)


@pytest.fixture(scope="module")
def built(tmp_path_factory, new_project):
    project = new_project(tmp_path_factory.mktemp("catalogue"))
    project.dbt("build")
    return project


class TestCatalogueDuckdb(CatalogueChecks):
    pass
