"""Node names are unique in a dbt project, and every node bloomery generates is named after the
spec: a name generated twice is refused at compile, located, instead of one file overwriting
another or `dbt parse` stopping on a duplicate test."""
from __future__ import annotations

import pytest

from bloomery.emit.dbt import render
from bloomery.errors import EmitError
from spec_trees import Tree

MODEL = "entity_model.yaml"
RULE = '''      - {rule: expression, name: discount_not_exceeding_gross,
         expr: "discount <= unit_price * quantity", on_fail: flag}'''


@pytest.fixture
def shop(tmp_path):
    return Tree.copy("shop", tmp_path)


def refused(tree) -> EmitError:
    project = tree.check()
    with pytest.raises(EmitError) as info:
        render(project)
    return project.relocate(info.value)


@pytest.mark.parametrize("name", ["conservation", "quarantine_rate", "drift"])
def test_a_rule_named_like_an_audit_is_refused_at_the_rule(shop, name):
    shop.edit(MODEL, RULE, RULE.replace("discount_not_exceeding_gross", name).replace("flag}", "fail}"))
    error = refused(shop)
    assert f"`order_item_{name}`" in error.message
    assert (error.location.file, error.location.line) == (shop.display(MODEL), shop.line_of(MODEL, f"name: {name}"))
    assert "rename the rule" in error.hint


def test_an_entity_named_like_another_entity_s_node_is_refused(shop):
    shop.edit(MODEL, "  order_item:\n", "  order__reject:\n")
    shop.edit(MODEL, "from: order_item,", "from: order__reject,")
    shop.edit("mapping_order_items.yaml", "target: order_item", "target: order__reject")
    error = refused(shop)
    assert "`order__reject` would be generated twice" in error.message
    assert (error.location.file, error.location.line) == (shop.display(MODEL), shop.line_of(MODEL, "order__reject:"))


def test_distinct_names_render(shop):
    files = render(shop.check())
    assert "order_item__reject.sql" in files and "order__reject.sql" in files
