"""Every field rule and transform, plus an entity outside the quality system, on every engine that
runs for real (DuckDB, PostgreSQL >= 16, and Spark under `make test-spark`). The checks are in
corpus_checks.py, written once; the corpus gives the engine's own expectation where an outcome is
a property of the engine."""
from __future__ import annotations

import pytest

from .corpus_checks import CATALOGUE, CatalogueChecks, catalogue_project
from .harness import ENGINES, SPARK, engine_project


@pytest.fixture(scope="module", params=ENGINES + [SPARK])
def new_project(request):
    """A callable: tmp path (and bronze rows) -> an unbuilt project with the catalogue specs."""
    engine = request.param
    return lambda tmp, **bronze: catalogue_project(engine_project(engine, tmp, request, CATALOGUE / "specs"), **bronze)


@pytest.fixture(scope="module")
def built(tmp_path_factory, new_project):
    project = new_project(tmp_path_factory.mktemp("catalogue"))
    project.dbt("build")
    return project


class TestCatalogue(CatalogueChecks):
    pass
