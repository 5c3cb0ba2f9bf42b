"""A `unique` rule on an incremental entity (DuckDB): a later load re-judges what earlier loads
published, and a source row re-delivered under another key brings its old key's rows along."""
from __future__ import annotations

import pytest

from .corpus_checks import CATALOGUE, catalogue, catalogue_project
from .harness import DuckProject

pytestmark = pytest.mark.duckdb


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


def test_a_source_row_that_moves_keys_is_judged_against_its_old_keys_rows(tmp_path):
    """With a `unique` rule the batch is chosen after the transforms; a source row re-delivered
    under another key still brings every row of its old key, so the old key's winner is the one
    one build over the same bronze picks (p-50, not p-1's stale delivery)."""
    cols = catalogue.COLUMNS

    def product(n, **overrides):
        return catalogue.row(n, None, **overrides)[0]

    first = [product(1, updated="2024-01-01T10:00:00"),
             product(50, sku=" p1 ", updated="2024-01-03T10:00:00")]
    moved = [product(1, sku=" p70 ", barcode="4006381333070", updated="2024-01-02T10:00:00",
                     _load_id="l2", _ingested_at="2024-03-01 00:00:00")]
    entity = "select sku, _source_row_id, _quality_flags from main.product order by 1, 2"
    ledger = "select _source_row_id, _load_id, route, winner_row_id from main.product__ledger order by 1, 2"

    project = DuckProject(tmp_path / "seq", specs=CATALOGUE / "specs")
    project.materialize("incremental_by_key", "product")
    project = catalogue_project(project, products=[(r, None) for r in first])
    project.dbt("build")
    project.write_bronze("pim__products", cols, moved, append=True)
    result = project.dbt("build")
    assert result.statuses["product_conservation"] == "pass"
    assert [r[:2] for r in project.query(entity)] == [("P1", "p-50"), ("P70", "p-1")]

    once = DuckProject(tmp_path / "once", specs=CATALOGUE / "specs")
    once.materialize("incremental_by_key", "product")
    once = catalogue_project(once, products=[(r, None) for r in first + moved])
    once.dbt("build")
    assert once.query(entity) == project.query(entity)
    assert once.query(ledger) == project.query(ledger)
