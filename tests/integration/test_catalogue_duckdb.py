"""Every field rule and transform on DuckDB, plus an entity outside the quality system
(the checks are in corpus_checks.py, shared with PostgreSQL)."""
from __future__ import annotations

import pytest

from .corpus_checks import CATALOGUE, CatalogueChecks, catalogue, catalogue_project
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


def test_unique_sees_rows_published_by_earlier_loads(tmp_path):
    """A later load's duplicate value re-judges the earlier row too: incremental = full refresh."""
    cols = catalogue.COLUMNS
    first = [r for r in catalogue.PRODUCTS if r[0][cols.index("_source_row_id")] in ("p-1", "p-19")]
    project = DuckProject(tmp_path, specs=CATALOGUE / "specs")
    project.materialize("incremental_by_key", "product")
    project = catalogue_project(project, products=first)
    project.dbt("build")
    late = catalogue.row(60, None, barcode=first[0][0][cols.index("barcode")],
                         _load_id="l7", _ingested_at="2024-03-01 00:00:00")[0]
    project.write_bronze("pim__products", cols, [late], append=True)
    project.dbt("build")
    flags = {r["_source_row_id"]: list(r["_quality_flags"]) for r in project.rows("select * from main.product")}
    assert flags["p-1"] == ["barcode_unique"] and flags["p-60"] == ["barcode_unique"]
    assert flags["p-19"] == []
