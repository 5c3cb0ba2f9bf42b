"""The shop corpus end to end on every engine that runs for real (DuckDB, PostgreSQL >= 16, and
Spark under `make test-spark`): every bronze row lands where its expected disposition says. The
checks are in corpus_checks.py, written once; the corpus gives the engine's own expectation where
an outcome is a property of the engine. A check about one engine's behaviour asks for that
engine's build of the same fixture, so the corpus is built once per engine."""
from __future__ import annotations

import pytest

from .corpus_checks import ShopChecks, load_shop
from .harness import ENGINES, ROOT, SPARK, engine_project

DUCKDB, POSTGRES = ENGINES


@pytest.fixture(scope="module", params=ENGINES + [SPARK])
def built(request, tmp_path_factory):
    project = engine_project(request.param, tmp_path_factory.mktemp(f"shop_{request.param}"), request)
    load_shop(project)
    assert project.compile() == 0
    project.dbt("build")
    return project


class TestShop(ShopChecks):
    pass


def test_parent_carries_the_unknown_member(built):
    # order_item rewrites orphans into order's key, so order holds one reserved member row
    rows = built.rows("select * from main.\"order\" where order_id = '__unknown__'")
    assert len(rows) == 1 and rows[0]["_source_row_id"] is None and rows[0]["_quality_ok"]
    # every kept line still joins to an order
    joined = built.query("select count(*) from main.order_item i join main.\"order\" o on i.order_id = o.order_id")
    assert joined[0][0] == built.query("select count(*) from main.order_item")[0][0]


@pytest.mark.parametrize("built", [DUCKDB], indirect=True)
def test_a_project_macro_overrides_the_package(built):
    # integration_tests/macros/flags_size.sql overrides `duckdb__flags_size` through the dispatch
    # search order, as a user's project would; the package's own macro has no such comment. The
    # mart counts the flagged kept rows with it (the entity copies `_quality_ok` from the staged table)
    marker = "flags_size: bloomery_integration_tests override"
    compiled = built.dir / "target" / "compiled" / "bloomery_integration_tests" / "models" / "bloomery"
    counts = sorted(compiled.glob("*__quality.sql"))
    assert len(counts) == 3 and all(marker in p.read_text() for p in counts), counts
    assert not any(marker in p.read_text() for p in (ROOT / "macros").rglob("*.sql"))


@pytest.mark.parametrize("built", [POSTGRES], indirect=True)
def test_a_decimal_field_is_published_with_its_precision_and_scale(built):
    """`decimal(12,4)` is numeric(12,4) in the entity, not a bare numeric (issue 19)."""
    columns = dict(built.query(
        "select column_name, format_type(atttypid, atttypmod) from information_schema.columns c "
        "join pg_attribute a on a.attrelid = ('main.' || c.table_name)::regclass and a.attname = c.column_name "
        "where c.table_schema = 'main' and c.table_name = 'order_item' and column_name in ('unit_price', 'discount')"))
    assert columns == {"unit_price": "numeric(12,4)", "discount": "numeric(12,4)"}
