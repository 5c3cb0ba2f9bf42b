"""Issue 37: no steering from names. Every case is the real compiler (`bloomery check`, which
renders the files too) on the shop tree with one thing changed, refused with a located spec error:
bloomery's namespace (`_bloomery*`, the placeholder `__bloomery_`, in any case) in any authored
name and any bronze column a mapping names; a generated relation named like a bronze relation; a
rule reading a field no mapping provides; an `assert:` regex the engines would refuse; a name
longer than PostgreSQL keeps. The shop tree itself, and the v1 fixtures, stay accepted."""
from __future__ import annotations

import re

import pytest

from bloomery.cli import main as bloomery_main
from spec_trees import Tree

SE, SO, SI = "entity_model.yaml", "mapping_orders.yaml", "mapping_order_items.yaml"
EXPR = 'expr: "discount <= unit_price * quantity"'
LONG = "f" * 300

CASES = {
    # the reproduction: a field carrying the placeholder next to one carrying SQL, both read by an
    # expression that spells the first in upper case (the guard was case-sensitive, the lookup not)
    "placeholder in a field name, read in upper case": [
        (SE, "      sku: {type: string}\n", '      sku: {type: string}\n      id__bloomery_col_1__x: {type: string}\n'
                                            '      "x) or (1=1)); drop table canary; --": {type: string}\n'),
        (SI, "  sku:\n", '  id__bloomery_col_1__x: {from: "$.payload.Sku"}\n'
                                '  "x) or (1=1)); drop table canary; --": {from: "$.payload.Sku"}\n  sku:\n'),
        (SE, EXPR, 'expr: "ID__BLOOMERY_COL_1__X = \\"x) or (1=1)); drop table canary; --\\""')],
    "internal column as a field": [(SE, "      status: {type: string}", "      _bloomery_route: {type: string}"),
                                   (SO, "  status:\n", "  _bloomery_route:\n")],
    "internal column as a field, other case": [(SE, "      status: {type: string}", "      _Bloomery_Rank: {type: string}"),
                                               (SO, "  status:\n", "  _Bloomery_Rank:\n")],
    "member name as a field, other case": [(SE, "      status: {type: string}", "      _Quality_Flags: {type: string}"),
                                           (SO, "  status:\n", "  _Quality_Flags:\n")],
    "bronze column read": [(SO, '{from: "$.customer"', '{from: "$._bloomery_winner"')],
    "bronze column unmapped": [(SO, 'unmapped: ["$._load_id"', 'unmapped: ["$._bloomery_raw", "$._load_id"')],
    "bronze column unmapped, placeholder": [(SO, 'unmapped: ["$._load_id"', 'unmapped: ["$.x__BLOOMERY_y", "$._load_id"')],
    "entity name": [(SE, "  order:  ", "  _bloomery_order:  "), (SO, "target: order", "target: _bloomery_order"),
                    (SE, "from: order, to: customer", "from: _bloomery_order, to: customer"),
                    (SE, "to: order, via", "to: _bloomery_order, via")],
    "rule name": [(SE, "name: discount_not_exceeding_gross", "name: _bloomery_rule")],
    "relationship name": [(SE, "{name: order_of_customer", "{name: _BLOOMERY_rel"),
                          (SE, "via: order_of_customer", "via: _BLOOMERY_rel")],
    "entity named like its bronze": [(SE, "  order:  ", "  shop__orders:  "), (SO, "target: order", "target: shop__orders"),
                                     (SE, "from: order, to: customer", "from: shop__orders, to: customer"),
                                     (SE, "to: order, via", "to: shop__orders, via")],
    "reject relation named like a bronze relation": [(SO, "source: shop__orders", "source: Order__Reject")],
    # `<entity>__staged_rest` is written by the entity's publishing post-hook, not a model file
    "entity named like a sibling's __staged_rest": [
        (SE, "  order:  ", "  customer__staged_rest:  "), (SO, "target: order", "target: customer__staged_rest"),
        (SE, "from: order, to: customer", "from: customer__staged_rest, to: customer"),
        (SE, "to: order, via", "to: customer__staged_rest, via")],
    "expression reads a field no mapping provides": [
        (SE, "      sku: {type: string}\n", "      sku: {type: string}\n      note: {type: string}\n"),
        (SE, EXPR, 'expr: "note IS NULL OR discount <= unit_price * quantity"')],
    "referential rule reads a field no mapping provides": [(SO, "  customer_id: {from: \"$.customer\", transform: [trim]}\n", "")],
    "assert regex refused by RE2": [(SE, "      sku: {type: string}", "      sku: {type: string, assert: {regex: '^(?=a)\\w+$'}}")],
    "assert regex with a backreference": [(SE, "      sku: {type: string}", "      sku: {type: string, assert: {regex: '(a)\\1'}}")],
    "300-character field name": [(SE, "      sku: {type: string}", f"      sku: {{type: string}}\n      {LONG}: {{type: string}}"),
                                  (SI, "  sku:\n", f'  {LONG}: {{from: "$.payload.Sku"}}\n  sku:\n')],
    "entity name too long with __staged_rest": [
        (SE, "  order:  ", f"  {'o' * 55}:  "), (SO, "target: order", f"target: {'o' * 55}"),
        (SE, "from: order, to: customer", f"from: {'o' * 55}, to: customer"), (SE, "to: order, via", f"to: {'o' * 55}, via")],
}


def _check(specs, capsys) -> tuple[int, str]:
    capsys.readouterr()
    code = bloomery_main(["check", "--specs", str(specs)])
    out = capsys.readouterr()
    return code, out.out + out.err


@pytest.mark.parametrize("case", sorted(CASES))
def test_refused_with_a_location(case, tmp_path, capsys):
    tree = Tree.copy("shop", tmp_path)
    for file, old, new in CASES[case]:
        tree.edit(file, old, new)
    code, text = _check(tree.root, capsys)
    assert code == 1, f"{case}: accepted\n{text}"
    assert re.search(r"\w+\.yaml:\d+:\d+: ", text), f"{case}: no file:line:col in\n{text}"
    assert "Traceback" not in text and "internal error" not in text and "File name too long" not in text


def test_the_shop_tree_and_the_v1_fixtures_are_accepted(tmp_path, capsys):
    """The refusals above are the edit's doing; bronze metadata (`_load_id`, `_ingested_at`,
    `_source_row_id`) is read from bronze as ever."""
    for name in ("shop", "full"):
        code, text = _check(Tree.copy(name, tmp_path / name).root, capsys)
        assert code == 0, text


def test_a_field_some_mappings_of_a_merged_entity_provide_may_be_judged(tmp_path, capsys):
    """On a merged entity a field one mapping provides is NULL on the other's rows by design; an
    expression over it is accepted. Only a field no mapping provides is refused."""
    tree = Tree.copy("full", tmp_path)
    # list_price: the EU mapping only; the quality system needs a retention
    tree.edit("entity_model.yaml", "    key: [sku]\n", "    key: [sku]\n    quarantine: {retention: 30d}\n")
    for mapping in ("mapping_products_eu.yaml", "mapping_products_us.yaml"):
        tree.append(mapping, 'unmapped: ["$._load_id", "$._ingested_at", "$._source_row_id"]')
    tree.edit("entity_model.yaml", '      list_price: {type: "decimal(12,2)"}\n',
              '      list_price: {type: "decimal(12,2)"}\n      note: {type: string}\n'
              '    quality:\n      - {rule: expression, name: price_positive, expr: "list_price > 0", on_fail: flag}\n')
    code, text = _check(tree.root, capsys)
    assert code == 0, text
    tree.edit("entity_model.yaml", 'expr: "list_price > 0"', 'expr: "list_price > 0 AND note IS NULL"')
    code, text = _check(tree.root, capsys)
    assert code == 1 and "`note`" in text and "any of the 2 mappings" in text, text
