"""Every field rule and transform on PostgreSQL >= 16: the same checks as on DuckDB
(corpus_checks.py), with the engine's own expectation where the corpus gives one per engine."""
from __future__ import annotations

import pytest

from .corpus_checks import CATALOGUE, CatalogueChecks, catalogue_project
from .harness import PgProject

pytestmark = pytest.mark.postgres


@pytest.fixture(scope="module")
def new_project(pg_server):
    return lambda tmp, **bronze: catalogue_project(PgProject(tmp, pg_server, specs=CATALOGUE / "specs"), **bronze)


@pytest.fixture(scope="module")
def built(tmp_path_factory, new_project):
    project = new_project(tmp_path_factory.mktemp("catalogue_pg"))
    project.dbt("build")
    return project


class TestCataloguePostgres(CatalogueChecks):
    pass
