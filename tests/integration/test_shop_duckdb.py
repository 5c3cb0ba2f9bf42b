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


def test_parent_carries_the_unknown_member(built):
    # order_item rewrites orphans into order's key, so order holds one reserved member row
    rows = built.rows("select * from main.\"order\" where order_id = '__unknown__'")
    assert len(rows) == 1 and rows[0]["_source_row_id"] is None and rows[0]["_quality_ok"]
    # every kept line still joins to an order
    joined = built.query("select count(*) from main.order_item i join main.\"order\" o using (order_id)")[0][0]
    assert joined == built.query("select count(*) from main.order_item")[0][0]
