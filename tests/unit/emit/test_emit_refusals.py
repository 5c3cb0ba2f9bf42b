"""`convert` typechecks, and is refused when dbt files are rendered (UnsupportedByTarget)."""
from __future__ import annotations

import pytest

from bloomery.emit.dbt import render
from bloomery.errors import UnsupportedByTarget
from spec_trees import Tree

ITEMS = "mapping_order_items.yaml"
CONVERT = "transform: [{to_decimal: [12, 4]}, {convert: EUR}]      #"


@pytest.fixture
def converting(tmp_path):
    tree = Tree.copy("shop", tmp_path)
    tree.edit(ITEMS, "transform: [{to_decimal: [12, 4]}]      #", CONVERT)
    return tree


def test_convert_typechecks_and_carries_where_it_is(converting):
    project = converting.check()  # no error before emit
    column = next(c for m in project.entities["order_item"].mappings for c in m.columns if c.name == "discount")
    step = next(s for s in column.steps if s["op"] == "convert")
    assert column.path == "mapping[shop__order_items->order_item].fields.discount"
    assert step["chain_index"] == 1
    loc = project.locate(f"{column.path}.transform[{step['chain_index']}]")
    assert (loc.file, loc.line) == (converting.display(ITEMS), converting.line_of(ITEMS, "convert: EUR"))


def test_render_refuses_convert_with_a_located_error(converting):
    project = converting.check()
    with pytest.raises(UnsupportedByTarget) as info:
        render(project)
    error = project.relocate(info.value)
    assert error.location.file == converting.display(ITEMS)
    assert error.location.line >= 1
    assert error.location.path.startswith("mapping[shop__order_items->order_item]")


def test_render_points_at_the_convert_step(converting):
    project = converting.check()
    with pytest.raises(UnsupportedByTarget) as info:
        render(project)
    error = project.relocate(info.value)
    assert (error.location.file, error.location.line, error.location.path) == (
        converting.display(ITEMS), converting.line_of(ITEMS, "convert: EUR"),
        "mapping[shop__order_items->order_item].fields.discount.transform[1]")
