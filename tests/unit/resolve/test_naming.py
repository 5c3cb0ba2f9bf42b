"""resolve/naming.py: the compiler names rules with it and `bloomery plan` renames them with it,
so the two must agree (a rename is then the same rule, not one removed and one added)."""
from __future__ import annotations

from bloomery.resolve.naming import assert_name, name_part, renamed_rule_name, rule_name, unique_name


def test_a_generated_rule_name_is_the_column_and_kind_with_a_one_sided_bound():
    assert rule_name("Unit-Price", "range", {"min": 0}) == "unit_price_range_min"
    assert rule_name("qty", "range", {"min": 0, "max": 9}) == "qty_range"
    assert rule_name("code", "length", {"max": 3}) == "code_length_max"
    assert rule_name("code", "pattern", {"min": 1}) == "code_pattern"
    assert name_part("Ünit price") == "_nit_price"


def test_a_taken_name_gets_the_next_number_and_is_recorded():
    taken = ["qty_range"]
    assert unique_name("qty_range", taken) == "qty_range_2"
    assert unique_name("qty_range", taken) == "qty_range_3"
    assert taken == ["qty_range", "qty_range_2", "qty_range_3"]


def test_a_rename_carries_generated_names_and_leaves_authored_ones():
    generated = rule_name("Unit Price", "range", {"min": 0})
    assert renamed_rule_name(generated, "Unit Price", "price") == rule_name("price", "range", {"min": 0})
    assert renamed_rule_name("no_free_lunch", "Unit Price", "price") == "no_free_lunch"
    assert assert_name("order", "amount", "min") == "order_amount_min"
