"""Issue 37: which values of a user's dbt test reach SQL as they stand (spec/dbt_metadata.py),
the ones `sql_test_keys` must name before the compile lets them through."""
from __future__ import annotations

from decimal import Decimal

import pytest

from bloomery.spec.dbt_metadata import limit_problems, relation_configs, sql_carriers

BASE = ("entities", "e", "tests", 0)


@pytest.mark.parametrize("entry", [
    "not_null", {"unique": None}, {"not_null": {"config": {"severity": "warn", "meta": {"x": "{{ y }}"}, "tags": ["t"],
                                                           "store_failures": True, "limit": 10, "enabled": False}}},
    {"not_null": {"name": "n", "description": "select 1; -- prose, not SQL", "severity": "warn"}},
    {"accepted_values": {"values": ["open", "{{ x }}", "a b", 1, Decimal("2.5"), True, None]}},
    {"accepted_values": {"values": [1, 2], "quote": False}},
    {"custom": {"arguments": {"min_rows": 1, "ratio": Decimal("0.5"), "strict": True, "none": None, "list": [1, 2]}}},
    {"not_null": {"where": 1}},
])
def test_data_only(entry):
    assert sql_carriers(entry, BASE) == []
    assert limit_problems(entry, BASE) == []


@pytest.mark.parametrize(("entry", "found"), [
    ({"not_null": {"where": "x > 1"}}, [("not_null", "where")]),
    ({"not_null": {"config": {"where": "x", "fail_calc": "sum(n)", "warn_if": ">1", "error_if": "!=0"}}},
     [("not_null", "config", "where"), ("not_null", "config", "fail_calc"), ("not_null", "config", "warn_if"),
      ("not_null", "config", "error_if")]),
    ({"accepted_values": {"values": ["a", "b'c"]}}, [("accepted_values", "values")]),
    ({"accepted_values": {"values": ["a\\"]}}, [("accepted_values", "values")]),
    ({"accepted_values": {"arguments": {"values": ["a"], "quote": False}}}, [("accepted_values", "arguments", "values")]),
    ({"relationships": {"to": "ref('x')", "field": "id"}}, [("relationships", "to"), ("relationships", "field")]),
    ({"dbt_utils.expression_is_true": {"arguments": {"expression": "a >= 0"}}},
     [("dbt_utils.expression_is_true", "arguments", "expression")]),
    ({"custom": {"columns": [1, "b"]}}, [("custom", "columns")]),
    # dbt's `{% if quote %}`: every false value of `quote` writes the values bare (red team 2)
    ({"accepted_values": {"values": ["cast(1 as varchar)"], "quote": 0}}, [("accepted_values", "values")]),
    ({"accepted_values": {"values": ["cast(1 as varchar)"], "quote": None}}, [("accepted_values", "values")]),
    ({"accepted_values": {"values": ["cast(1 as varchar)"], "quote": []}}, [("accepted_values", "values")]),
    ({"custom": {"opts": {"deep": ["text"]}}}, [("custom", "opts")]),
])
def test_sql_carriers(entry, found):
    assert [p[len(BASE):] for p, _, _ in sql_carriers(entry, BASE)] == found


@pytest.mark.parametrize("limit", ["5", "1; drop table x", -1, True, Decimal("1.5")])
def test_limit_is_a_row_count(limit):
    assert [p[len(BASE):] for p, _ in limit_problems({"not_null": {"limit": limit}}, BASE)] == [("not_null", "limit")]
    assert [p[len(BASE):] for p, _ in limit_problems({"not_null": {"config": {"limit": limit}}}, BASE)] == \
        [("not_null", "config", "limit")]


@pytest.mark.parametrize("key", ["database", "schema", "alias"])
def test_a_test_config_naming_a_relation_is_found(key):
    """dbt stores a test's failures in the relation these name, dropping it first: named like a
    bronze table, `store_failures: true` replaced it (red team 2)."""
    assert relation_configs({"not_null": {key: "main"}}, BASE) == [(BASE + ("not_null", key), key)]
    assert relation_configs({"not_null": {"config": {key: "x", "store_failures": True}}}, BASE) == \
        [(BASE + ("not_null", "config", key), key)]
    assert relation_configs({"not_null": {"config": {"store_failures": True, "severity": "warn"}}}, BASE) == []
