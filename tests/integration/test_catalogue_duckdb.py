"""Every field rule and transform on DuckDB, plus an entity outside the quality system."""
from __future__ import annotations

import json
import sys
from decimal import Decimal

import pytest

from .harness import INTEGRATION, DuckProject

CATALOGUE = INTEGRATION / "corpus" / "catalogue"
sys.path.insert(0, str(CATALOGUE))
import bronze  # noqa: E402

pytestmark = pytest.mark.duckdb


def _project(tmp_path, products=bronze.PRODUCTS, groups=bronze.GROUPS):
    project = DuckProject(tmp_path, specs=CATALOGUE / "specs")
    project.write_bronze("pim__products", bronze.COLUMNS, [v for v, _ in products])
    project.write_bronze("crm__groups", bronze.GROUPS_COLUMNS, groups)
    assert project.compile() == 0
    return project


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    project = _project(tmp_path_factory.mktemp("catalogue"))
    project.dbt("build")
    return project


def test_every_row_lands_where_expected(built):
    kept = {r["_source_row_id"]: r for r in built.rows("select * from main.product")}
    rejected = {r["_source_row_id"]: r for r in built.rows("select * from main.product__reject")}
    for values, expect in bronze.PRODUCTS:
        row_id = values[bronze.COLUMNS.index("_source_row_id")]
        if expect[0] == "entity":
            assert row_id in kept and row_id not in rejected, row_id
            assert list(kept[row_id]["_quality_flags"]) == expect[1], row_id
        elif expect[0] == "reject":
            assert row_id in rejected and row_id not in kept, row_id
            assert list(rejected[row_id]["failed_rules"]) == expect[1], row_id
        else:
            assert row_id not in kept and row_id not in rejected, row_id


def test_transform_values(built):
    p1 = built.rows("select * from main.product where _source_row_id = 'p-1'")[0]
    assert p1["sku"] == "P1"
    assert p1["category"] == "tools"
    assert p1["size_code"] == "M"
    assert p1["price_cents"] == 1999
    assert p1["weight_kg"] == Decimal("1.500")
    assert p1["active"] is True
    assert str(p1["launched_on"]) == "2021-03-15"
    assert str(p1["updated_at"]) == "2024-01-01 09:00:00"  # Paris 10:00 in winter is 09:00 UTC
    assert p1["rating"] == 4
    assert p1["discount_pct"] == Decimal("12.30")
    assert p1["code"] == "AB"
    assert built.rows("select rating from main.product where _source_row_id = 'p-23'")[0]["rating"] == 3


def test_redacted_column_never_reaches_raw(built):
    for r in built.rows("select raw from main.product__reject"):
        assert "secret" not in json.loads(r["raw"])


def test_identifiers_are_quoted(built):
    rows = built.rows('select "group_id", "DisplayName", member_count, _quality_flags, _quality_ok from main."group" order by 1')
    assert [(r["group_id"], r["DisplayName"], r["member_count"]) for r in rows] == [("g1", "Admins", 3), ("g2", "Readers", 120)]
    assert all(list(r["_quality_flags"]) == [] and r["_quality_ok"] for r in rows)


def test_entity_outside_quality_keeps_produce_or_raise(tmp_path):
    project = _project(tmp_path, groups=bronze.GROUPS + [("g3", "Bad", "lots")])
    result = project.dbt("build", "--select", "group__staged", check=False)
    assert not result.success
    assert result.statuses["group__staged"] == "error"


def test_asserts_warn_but_never_route(built):
    # p-8 has price -5 (quarantined: never published), p-1 barcode passes; asserts only warn
    result = built.dbt("test", "--select", "product", check=False)
    assert result.statuses["product_code_enum"] == "warn"       # '' (p-19) is not AB or CD
    assert result.statuses["product_name_not_null_assert"] == "pass"
    assert result.statuses["product_price_cents_min"] == "pass"


def test_fail_rule_blocks_the_entity(tmp_path):
    extra = [bronze.row(90, None, name=None)]
    project = _project(tmp_path, products=bronze.PRODUCTS + extra)
    result = project.dbt("build", check=False)
    assert result.statuses["product_name_not_null"] == "fail"
    for node in ("product", "product__reject", "mart_data_quality"):
        assert result.statuses[node] == "skipped", node
