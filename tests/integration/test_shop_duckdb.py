"""The shop corpus end to end on DuckDB: every bronze row lands where its expected disposition says
(the checks are in corpus_checks.py, shared with PostgreSQL)."""
from __future__ import annotations

import pytest

from .corpus_checks import ShopChecks, load_shop
from .harness import ROOT, DuckProject

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


def test_parent_carries_the_unknown_member(built):
    # order_item rewrites orphans into order's key, so order holds one reserved member row
    rows = built.rows("select * from main.\"order\" where order_id = '__unknown__'")
    assert len(rows) == 1 and rows[0]["_source_row_id"] is None and rows[0]["_quality_ok"]
    # every kept line still joins to an order
    joined = built.query("select count(*) from main.order_item i join main.\"order\" o using (order_id)")[0][0]
    assert joined == built.query("select count(*) from main.order_item")[0][0]


def test_a_project_macro_overrides_the_package(built):
    # integration_tests/macros/flags_size.sql overrides `duckdb__flags_size` through the dispatch
    # search order, as a user's project would; the package's own macro has no such comment
    marker = "flags_size: bloomery_integration_tests override"
    compiled = built.dir / "target" / "compiled" / "bloomery_integration_tests" / "models" / "bloomery" / "order_item.sql"
    assert marker in compiled.read_text()
    assert not any(marker in p.read_text() for p in (ROOT / "macros").rglob("*.sql"))
