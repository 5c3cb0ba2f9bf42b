"""The typed IR: frozen values, the precedence of dispositions, and `as_data`, the one place an IR
value becomes the data a generated model carries (the golden files check every field of it)."""
from __future__ import annotations

import dataclasses

import pytest

from bloomery.resolve import Disposition, check_project
from bloomery.resolve.ir import Rule, as_data
from spec_trees import VALID


def test_the_ir_is_frozen_all_the_way_down():
    project = check_project(VALID / "full")
    order = project.entities["order"]
    for value in (order, order.rules[0], order.mappings[0], order.mappings[0].columns[0], order.columns[0],
                  order.dedupe, order.quarantine):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(value, dataclasses.fields(value)[0].name, "changed")
    assert isinstance(order.rules, tuple) and isinstance(order.mappings, tuple) and isinstance(order.key, tuple)


def test_disposition_order_is_the_precedence():
    assert Disposition.FLAG < Disposition.QUARANTINE < Disposition.FAIL
    assert max(Disposition.of("flag"), Disposition.of("fail"), Disposition.of("quarantine")) is Disposition.FAIL
    assert [d.spec for d in Disposition] == ["flag", "quarantine", "fail"]


def test_a_rule_as_data_spells_what_the_macros_read():
    rule = Rule("qty_range", "range", "qty", Disposition.QUARANTINE, "mapping[a->b].fields.qty.quality[0]",
                args={"column_type": {"name": "int"}, "min": {"kind": "number", "value": "0"}})
    assert as_data(rule) == {"name": "qty_range", "rule": "range", "column": "qty", "disposition": "quarantine",
                             "path": "mapping[a->b].fields.qty.quality[0]", "column_type": {"name": "int"},
                             "min": {"kind": "number", "value": "0"}}
    # what a rule does not have is absent, not null: the macros ask `rule.max is defined`
    assert "max" not in as_data(rule) and "mappings" not in as_data(rule) and "implicit" not in as_data(rule)


def test_a_referential_rule_as_data_carries_its_pairs_as_lists_and_an_empty_slice_stays():
    ref = Rule("o_ref", "referential", "customer_id", Disposition.FLAG, "entities.order.quality[0]",
               relationship="o", parent="customer", pairs=(("customer_id", "id"),), on_missing="unknown_member",
               published=True)
    data = as_data(ref)
    assert data["pairs"] == [["customer_id", "id"]] and data["published"] is True and data["disposition"] == "flag"
    unique = Rule("sku_unique", "unique", "sku", Disposition.FLAG, "p", slice=())
    assert as_data(unique)["slice"] == []          # an unpartitioned entity's slice: present and empty


def test_the_entity_as_data_names_its_fields_as_the_macros_do():
    order = check_project(VALID / "full").entities["order"]
    data = as_data(order)
    assert data["entity"] == "order" and "name" not in data
    assert data["mappings"][0]["mapping"] == "shop__orders->order" and data["mappings"][0]["mapping_version"] == 1
    assert all(isinstance(r["disposition"], str) for r in data["rules"])


def test_the_route_follows_the_rules_of_every_new_value():
    order = check_project(VALID / "full").entities["order"]
    assert set(order.route.divert) == {r.name for r in order.rules if r.quarantines}
    assert order.route.flags == tuple(r.name for r in order.rules)
    relaxed = dataclasses.replace(order, rules=tuple(dataclasses.replace(r, disposition=Disposition.FLAG)
                                                     for r in order.rules))
    assert relaxed.route.divert == () and relaxed.route.flags == order.route.flags
