"""The shop corpus end to end on PostgreSQL >= 16: the same row-by-row checks as on DuckDB
(corpus_checks.py), with the engine's own expectation where the corpus gives one per engine."""
from __future__ import annotations

import pytest

from .corpus_checks import ShopChecks, load_shop
from .harness import PgProject

pytestmark = pytest.mark.postgres


@pytest.fixture(scope="module")
def built(tmp_path_factory, pg_server):
    project = PgProject(tmp_path_factory.mktemp("shop_pg"), pg_server)
    load_shop(project)
    assert project.compile() == 0
    project.dbt("build")
    return project


class TestShopPostgres(ShopChecks):
    pass


def test_a_decimal_field_is_published_with_its_precision_and_scale(built):
    """`decimal(12,4)` is numeric(12,4) in the entity, not a bare numeric (issue 19)."""
    columns = dict(built.query(
        "select column_name, format_type(atttypid, atttypmod) from information_schema.columns c "
        "join pg_attribute a on a.attrelid = ('main.' || c.table_name)::regclass and a.attname = c.column_name "
        "where c.table_schema = 'main' and c.table_name = 'order_item' and column_name in ('unit_price', 'discount')"))
    assert columns == {"unit_price": "numeric(12,4)", "discount": "numeric(12,4)"}
