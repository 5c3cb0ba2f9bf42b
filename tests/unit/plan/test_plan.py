"""`plan(old, new)`: every row of the classification table (spec reference, section 7), the
replay_scope rule, propagation to children (chains, cycles, unknown_member/flag limits), the
commands and their order, the compiled-state snapshot and the CLI.

Each test copies a valid spec tree twice, edits the second copy as text, and plans between them.
"""
from __future__ import annotations

import copy
from dataclasses import replace
import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from bloomery.cli import main as bloomery_main
from bloomery.errors import PlanError, RenameTargetMissing
from bloomery.plan import (ChangeClass, load_compiled, load_project, plan, snapshot_path, to_text,
                           write_snapshot)
from bloomery.plan.scope import parents_first, propagate
from bloomery.resolve.ir import Disposition, Rule

from spec_trees import Tree

A, W, N, R, B = (ChangeClass.ADDITIVE, ChangeClass.WIDENING, ChangeClass.RENAME, ChangeClass.RESTATING,
                 ChangeClass.BREAKING)
MODEL, CUSTOMERS, ORDERS, ITEMS, SHIPMENTS = ("entity_model.yaml", "mapping_customers.yaml", "mapping_orders.yaml",
                                              "mapping_order_items.yaml", "mapping_shipments.yaml")


class Pair:
    """Two copies of one fixture: `old` stays as it is, `new` takes the edits."""

    def __init__(self, tmp_path: Path, fixture: str = "full"):
        self.old = Tree.copy(fixture, tmp_path / "old")
        self.new = Tree.copy(fixture, tmp_path / "new")

    def both(self, file: str, old: str, new: str) -> "Pair":
        self.old.edit(file, old, new)
        self.new.edit(file, old, new)
        return self

    def edit(self, file: str, old: str, new: str) -> "Pair":
        self.new.edit(file, old, new)
        return self

    def add_reference(self, name: str, child: str, parent: str, via: tuple[str, str], *, mapping: str, source: str,
                      field_after: str, rule_after: str, opens_quality: bool = False) -> "Pair":
        """Both copies gain the many-to-one relationship `name` from `child` to `parent` over `via`
        (the child's column, the parent's): the child's new string column on the line after
        `field_after`, read from `$.<source>` by its `mapping`, and a referential rule at quarantine
        on the line after `rule_after` (opening the entity's `quality:` list when `opens_quality`)."""
        column, parent_column = via
        self.both(MODEL, field_after, f"{field_after}      {column}: {{type: string}}\n")
        self.both(MODEL, rule_after, rule_after + ("    quality:\n" if opens_quality else "")
                  + f"      - {{rule: referential, via: {name}, on_missing: quarantine}}\n")
        self.both(MODEL, "relationships:\n", f"relationships:\n  - {{name: {name}, from: {child}, to: {parent}, "
                  f"via: {{{column}: {parent_column}}}, cardinality: many_to_one}}\n")
        return self.both(mapping, "unmapped:", f'  {column}: {{from: "$.{source}"}}\nunmapped:')

    def plan(self):
        return plan(load_project(self.old.root), load_project(self.new.root))


def classes(p) -> dict[str, list[ChangeClass]]:
    out: dict[str, list[ChangeClass]] = {}
    for c in p.changes:
        out.setdefault(c.subject, []).append(c.change_class)
    return out


def only(p, subject: str):
    hits = [c for c in p.changes if c.subject == subject]
    assert len(hits) == 1, f"{subject}: {hits} in {p.changes}"
    return hits[0]


@pytest.fixture
def pair(tmp_path):
    return Pair(tmp_path)


# -- the two ends -----------------------------------------------------------------------------------
@pytest.mark.parametrize("fixture", ["full", "shop"])
def test_same_project_is_an_empty_plan(tmp_path, fixture):
    ir = load_project(Tree.copy(fixture, tmp_path).root)
    p = plan(ir, ir)
    assert p.changes == [] and p.empty
    assert p.replay_scope == [] and p.backfill_scope.entities == [] and not p.backfill_scope.restates_history
    assert p.commands == []
    # two compilations of one tree compare equal too (nothing depends on identity or line numbers)
    assert plan(load_project(Tree.copy(fixture, tmp_path / "again").root), ir).empty


@pytest.mark.parametrize("fixture", ["full", "shop"])
def test_first_deployment_is_all_additive(tmp_path, fixture):
    ir = load_project(Tree.copy(fixture, tmp_path).root)
    p = plan(None, ir)
    assert p.changes and {c.change_class for c in p.changes} == {A}
    assert {c.subject for c in p.changes if c.subject.startswith("entity:")} == {f"entity:{e}" for e in ir.entities}
    assert p.replay_scope == [] and p.backfill_scope.entities == [] and not p.backfill_scope.restates_history
    assert p.commands == ["dbt build"]


def test_changes_are_triples(pair):
    pair.edit(ORDERS, "{rule: in_enum, on_fail: quarantine}", "{rule: in_enum, on_fail: flag}")
    (change,) = pair.plan().changes
    subject, cls, detail = change
    assert (subject, cls) == ("quality:order.status_in_enum", R) and "quarantine -> flag" in detail


def test_differing_ir_versions_refused(tmp_path):
    old = load_project(Tree.copy("shop", tmp_path).root)
    new = load_project(Tree.copy("shop", tmp_path / "b").root)
    old.ir_version = 0
    with pytest.raises(PlanError, match="different IR versions"):
        plan(old, new)


# -- rules: RESTATING, backfill the entity, replay by the section's rule ---------------------------------
def rule_case(pair, file, old, new):
    pair.edit(file, old, new)
    return pair.plan()


def test_rule_added(pair):
    p = rule_case(pair, SHIPMENTS, '  carrier: {from: "$.carrier", transform: [trim, lower]}',
                  '  carrier: {from: "$.carrier", transform: [trim, lower], quality: [{rule: not_null, on_fail: quarantine}]}')
    assert classes(p) == {"quality:shipment.carrier_not_null": [R]}
    assert p.backfill_scope.entities == ["shipment"] and p.backfill_scope.restates_history
    assert p.replay_scope == [], "an added rule can only hold more rows back"


def test_rule_removed_that_quarantined_is_replayed(pair):
    p = rule_case(pair, CUSTOMERS, "    quality:\n      - {rule: in_set, values: [0, 1, 2, 3, 4, 5], on_fail: quarantine}\n", "")
    assert "rule removed" in only(p, "quality:customer.tier_in_set").detail
    assert p.replay_scope[0] == "customer"


def test_rule_removed_that_flagged_is_not_replayed(pair):
    p = rule_case(pair, CUSTOMERS, "      - {rule: unique, on_fail: flag}\n", "")
    assert classes(p) == {"quality:customer.email_unique": [R]}
    assert p.backfill_scope.entities == ["customer"] and p.replay_scope == []


def test_quarantine_to_flag_is_replayed(pair):
    p = rule_case(pair, CUSTOMERS, "{rule: in_enum, on_fail: quarantine}", "{rule: in_enum, on_fail: flag}")
    assert classes(p) == {"quality:customer.country_in_enum": [R]}
    assert p.replay_scope[0] == "customer"


@pytest.mark.parametrize("old,new", [
    ("{rule: length, min: 2, max: 2, on_fail: flag}", "{rule: length, min: 2, max: 2, on_fail: quarantine}"),  # flag -> quarantine
    ("{rule: in_enum, on_fail: quarantine}", "{rule: in_enum, on_fail: fail}"),                                # quarantine -> fail
])
def test_disposition_changes_not_replayed(pair, old, new):
    p = rule_case(pair, CUSTOMERS, old, new)
    (change,) = p.changes
    assert change.change_class is R and "disposition" in change.detail
    assert p.backfill_scope.entities == ["customer"] and p.replay_scope == []


@pytest.mark.parametrize("file,old,new", [
    (CUSTOMERS, "values: [0, 1, 2, 3, 4, 5]", "values: [5, 4, 3, 2, 1, 0, 0]"),
    (CUSTOMERS, "{rule: range, min: 0, on_fail: quarantine}", '{rule: range, min: "0.00", on_fail: quarantine}'),
    (ITEMS, "{rule: range, min: 1, max: 999, on_fail: quarantine}", '{rule: range, min: "1.0", max: 999, on_fail: quarantine}'),
])
def test_parameters_spelled_differently_are_no_change(pair, file, old, new):
    """A set's order and repeats, a number's notation: the verdicts are the same, so is the plan."""
    assert rule_case(pair, file, old, new).changes == []


@pytest.mark.parametrize("file,old,new,replay", [
    # in_set gained a member / lost one (pure tightening)
    (CUSTOMERS, "values: [0, 1, 2, 3, 4, 5]", "values: [0, 1, 2, 3, 4, 5, 6]", True),
    (CUSTOMERS, "values: [0, 1, 2, 3, 4, 5]", "values: [0, 1, 2, 3, 4]", False),
    # range: lowered min, raised min, raised max, lowered max (decimal comparison)
    (CUSTOMERS, "{rule: range, min: 0, on_fail: quarantine}", '{rule: range, min: "-0.50", on_fail: quarantine}', True),
    (CUSTOMERS, "{rule: range, min: 0, on_fail: quarantine}", '{rule: range, min: "0.01", on_fail: quarantine}', False),
    (ITEMS, "{rule: range, min: 1, max: 999, on_fail: quarantine}", "{rule: range, min: 1, max: 1000, on_fail: quarantine}", True),
    (ITEMS, "{rule: range, min: 1, max: 999, on_fail: quarantine}", "{rule: range, min: 2, max: 998, on_fail: quarantine}", False),
    # length: raised max / lowered max
    (CUSTOMERS, "{rule: length, max: 254, on_fail: quarantine}", "{rule: length, max: 320, on_fail: quarantine}", True),
    (CUSTOMERS, "{rule: length, max: 254, on_fail: quarantine}", "{rule: length, max: 100, on_fail: quarantine}", False),
    # pattern: undecidable, so replayed
    (ITEMS, "regex: '^[A-Z]{3}-[0-9]{3}$|^X$'", "regex: '^[A-Z]{3}-[0-9]{3,4}$|^X$'", True),
    (ITEMS, "regex: '^[A-Z]{3}-[0-9]{3}$|^X$'", "regex: '^[A-Z]{3}-[0-9]{3}$'", True),
])
def test_parameter_changes(pair, file, old, new, replay):
    p = rule_case(pair, file, old, new)
    (change,) = p.changes
    assert change.change_class is R and "parameters changed" in change.detail
    entity = "customer" if file == CUSTOMERS else "order_item"
    assert p.backfill_scope.entities[0] == entity
    assert (entity in p.replay_scope) is replay
    assert ("replay:" in change.detail) is replay


def test_range_on_dates_compares_as_dates(pair):
    pair.edit(CUSTOMERS, '{rule: range, min: "2010-01-01", max: "2030-12-31", on_fail: flag}',
              '{rule: range, min: "2009-12-31", max: "2030-12-31", on_fail: quarantine}')
    p = pair.plan()
    detail = only(p, "quality:customer.signed_up_on_range").detail
    assert "admits more" in detail and p.replay_scope == [], "it quarantined nothing before: nothing waits"
    # and the other way: quarantine with a later min admits nothing new
    pair2 = Pair(pair.old.root.parent.parent / "dates2")
    pair2.both(CUSTOMERS, '{rule: range, min: "2010-01-01", max: "2030-12-31", on_fail: flag}',
               '{rule: range, min: "2010-01-01", max: "2030-12-31", on_fail: quarantine}')
    pair2.edit(CUSTOMERS, 'min: "2010-01-01", max: "2030-12-31"', 'min: "2010-06-01", max: "2030-12-31"')
    assert "admits nothing new" in only(pair2.plan(), "quality:customer.signed_up_on_range").detail
    assert pair2.plan().replay_scope == []


def test_mismatched_bound_sets_are_undecidable(pair):
    # the same generated name with a bound set that differs cannot be compared bound by bound
    pair.both(ITEMS, "{rule: range, min: 1, max: 999, on_fail: quarantine}",
              "{rule: range, min: 1, on_fail: quarantine}\n      - {rule: range, max: 999, on_fail: quarantine}")
    pair.edit(ITEMS, "{rule: range, min: 1, on_fail: quarantine}", "{rule: range, min: 1, max: 5000, on_fail: quarantine}")
    p = pair.plan()
    # quantity_range_min disappears, quantity_range appears: a removal (replayed) and an addition
    assert classes(p) == {"quality:order_item.quantity_range": [R], "quality:order_item.quantity_range_min": [R]}
    assert "order_item" in p.replay_scope


def test_in_enum_gaining_a_spelling_is_replayed(pair):
    pair.edit(CUSTOMERS, "{enum_map: [FRANCE, FR, GERMANY, DE, UK, GB]}", "{enum_map: [FRANCE, FR, GERMANY, DE, UK, GB, ENGLAND, GB]}")
    p = pair.plan()
    assert classes(p) == {"field:customer.country": [R], "quality:customer.country_in_enum": [R]}
    assert "ENGLAND" in only(p, "quality:customer.country_in_enum").detail
    assert p.replay_scope[0] == "customer"


def test_in_enum_gaining_a_target_is_replayed(pair):
    pair.edit(CUSTOMERS, "{enum_map: [FRANCE, FR, GERMANY, DE, UK, GB]}", "{enum_map: [FRANCE, FR, GERMANY, DE, UK, GB, SPAIN, ES]}")
    assert pair.plan().replay_scope[0] == "customer"


def test_expression_change_is_undecidable(pair):
    pair.both(MODEL, 'expr: "shipped_at IS NULL OR shipped_at >= ordered_at", on_fail: flag}',
              'expr: "shipped_at IS NULL OR shipped_at >= ordered_at", on_fail: quarantine}')
    pair.edit(MODEL, 'expr: "shipped_at IS NULL OR shipped_at >= ordered_at"', 'expr: "shipped_at IS NULL OR shipped_at > ordered_at"')
    p = pair.plan()
    assert "admission undecidable" in only(p, "quality:order.shipped_after_ordered").detail
    assert "order" in p.replay_scope


@pytest.mark.parametrize("on_missing", ["unknown_member", "flag"])
def test_referential_quarantine_relaxed_is_replayed(pair, on_missing):
    pair.edit(MODEL, "{rule: referential, via: order_of_customer, on_missing: quarantine}",
              f"{{rule: referential, via: order_of_customer, on_missing: {on_missing}}}")
    p = pair.plan()
    assert f"on_missing quarantine -> {on_missing}" in only(p, "quality:order.order_of_customer_referential").detail
    assert p.replay_scope == ["order"]


def test_referential_tightened_is_not_replayed(pair):
    pair.edit(MODEL, "{rule: referential, via: shipment_of_order, on_missing: flag}",
              "{rule: referential, via: shipment_of_order, on_missing: quarantine}")
    p = pair.plan()
    assert classes(p) == {"quality:shipment.shipment_of_order_referential": [R]}
    assert p.replay_scope == [] and p.backfill_scope.entities == ["shipment"]


def test_cast_chain_change_reaches_coercible(pair):
    # the coercible verdict is the cast's: a chain that casts differently may admit held rows
    pair.edit(CUSTOMERS, 'transform: [{parse_date: "%d/%m/%Y"}]', 'transform: [trim, {parse_date: "%d/%m/%Y"}]')
    p = pair.plan()
    assert classes(p) == {"field:customer.signed_up_on": [R], "quality:customer.signed_up_on_coercible": [R]}
    assert only(p, "field:customer.signed_up_on").detail == "transform chain changed"
    assert p.replay_scope[0] == "customer"


# -- the other rows of the table -------------------------------------------------------------------
def test_transform_chain_changed_without_a_cast_rule(pair):
    # `channel` is nullifying (regex_extract): no coercible rule, so nothing is held for it
    pair.edit(ORDERS, "{regex_extract: ['^([a-z]+)', 1]}", "{regex_extract: ['^([a-z0-9]+)', 1]}")
    p = pair.plan()
    assert classes(p) == {"field:order.channel": [R]}
    assert p.backfill_scope.entities == ["order"] and p.backfill_scope.restates_history and p.replay_scope == []


def test_source_changed(pair):
    pair.edit(SHIPMENTS, '{from: "$.carrier", transform: [trim, lower]}', '{from: "$.carrier_name", transform: [trim, lower]}')
    p = pair.plan()
    assert "source changed" in only(p, "field:shipment.carrier").detail
    assert only(p, "field:shipment.carrier").change_class is R
    assert p.backfill_scope.entities == ["shipment"]


def test_canonical_changed(pair):
    pair.edit(MODEL, "total: {type: \"decimal(18,2)\", canonical: order_total}", "total: {type: \"decimal(18,2)\"}")
    p = pair.plan()
    assert classes(p) == {"field:order.total": [R]}
    assert p.backfill_scope.entities == ["order"] and p.replay_scope == []


@pytest.mark.parametrize("old,new,detail", [
    ("dedupe: {keep: latest_by, field: ordered_at, tie_break: [_load_id, _source_row_id]}",
     "dedupe: {keep: latest_by, field: ordered_at, tie_break: [_load_id]}", "dedupe order changed"),
    ("    dedupe: {keep: latest_by, field: ordered_at, tie_break: [_load_id, _source_row_id]}\n", "", "dedupe removed"),
])
def test_dedupe_changed(pair, old, new, detail):
    p = rule_case(pair, MODEL, old, new)
    change = only(p, "dedupe:order")
    assert change.change_class is R and change.detail.startswith(detail)
    assert "order" in p.backfill_scope.entities and p.replay_scope == []


def test_dedupe_added(pair):
    pair.edit(MODEL, "      cost: {type: \"decimal(10,2)\"}\n", "      cost: {type: \"decimal(10,2)\"}\n"
              "    dedupe: {keep: latest_by, field: _ingested_at, tie_break: [_load_id]}\n")
    p = pair.plan()
    assert classes(p) == {"dedupe:shipment": [R]}
    assert p.backfill_scope.entities == ["shipment"] and p.replay_scope == []


def test_retention_changed_is_additive(pair):
    p = rule_case(pair, MODEL, "quarantine: {retention: 48h}", "quarantine: {retention: 7d}")
    assert classes(p) == {"quarantine:shipment": [A]}
    assert not p.backfill_scope.restates_history and p.commands == ["dbt build"]


def test_quarantine_rate_thresholds_changed_are_additive(pair):
    """They change what dbt reports about the run (the `<entity>_quarantine_rate` test), never a row."""
    p = rule_case(pair, MODEL, "quarantine: {retention: 48h}", "quarantine: {retention: 48h, warn_above: 0.5%, error_above: 10%}")
    assert classes(p) == {"quarantine:shipment": [A, A]}
    assert sorted(c.detail for c in p.changes) == [
        "error_above changed: none -> 10% (the `shipment_quarantine_rate` test)",
        "warn_above changed: 0% -> 0.5% (the `shipment_quarantine_rate` test)"]
    assert not p.backfill_scope.restates_history and p.commands == ["dbt build"]


def test_quarantine_added_and_removed(pair):
    # shipment leaves the quality system: its referential rule, its implicit coercible rules
    # and its quarantine block go (a quarantine rule cannot outlive the block)
    pair.edit(MODEL, "    quality:\n      - {rule: referential, via: shipment_of_order, on_missing: flag}\n"
              "    quarantine: {retention: 48h}\n", "")
    removed = pair.plan()
    assert classes(removed)["quarantine:shipment"] == [B] and removed.breaking
    assert "no longer be replayed" in only(removed, "quarantine:shipment").detail
    # the implicit coercible rules quarantined, but there is no reject table left to replay
    assert only(removed, "quality:shipment.cost_coercible").change_class is R
    assert removed.replay_scope == []
    assert any("cannot be replayed" in n for n in removed.notes)
    added = plan(load_project(pair.new.root), load_project(pair.old.root))
    assert classes(added)["quarantine:shipment"] == [A]
    assert not added.breaking and added.replay_scope == []


def test_redact_widened_and_narrowed(pair):
    pair.both(CUSTOMERS, 'unmapped: ["$.notes",', 'unmapped: ["$.notes", "$.memo",')
    pair.edit(MODEL, 'redact: ["$.notes"]', 'redact: ["$.notes", "$.memo"]')
    widened = pair.plan()
    change = only(widened, "quarantine:customer")
    assert change.change_class is R and change.detail == (
        "redact widened (`memo`): the next `dbt build` removes them from `raw` of the rows `customer__reject` "
        "already holds, and new reject rows never keep them")
    assert widened.commands == ["dbt build"]
    # RESTATING without a backfill: history is restated, no entity is rebuilt
    assert widened.backfill_scope.restates_history and widened.backfill_scope.entities == []
    assert widened.replay_scope == []
    narrowed = plan(load_project(pair.new.root), load_project(pair.old.root))
    assert classes(narrowed) == {"quarantine:customer": [A]} and "redact narrowed" in narrowed.changes[0].detail


def test_raw_column_set_gained_and_lost(pair):
    pair.edit(SHIPMENTS, 'unmapped: ["$._load_id",', 'unmapped: ["$.label", "$._load_id",')
    gained = pair.plan()
    assert classes(gained) == {"quarantine:shipment": [A]} and "gains `label`" in gained.changes[0].detail
    lost = plan(load_project(pair.new.root), load_project(pair.old.root))
    change = only(lost, "quarantine:shipment")
    assert change.change_class is R and "loses `label`" in change.detail
    assert lost.backfill_scope.restates_history and lost.backfill_scope.entities == []


def test_reject_mapping_version_changed(tmp_path):
    old = load_project(Tree.copy("full", tmp_path).root)
    new = copy.deepcopy(old)
    customer = new.entities["customer"]
    new.entities["customer"] = replace(customer, mappings=(replace(customer.mappings[0], version=2),))
    p = plan(old, new)
    assert classes(p) == {"quarantine:customer": [A]} and "mapping_version" in p.changes[0].detail


def test_reconcile_added_removed_changed(pair):
    pair.edit(MODEL, 'tolerance: "0.01", on_fail: fail}', 'tolerance: "0.05", on_fail: fail}')
    pair.edit(MODEL, '''  - {name: item_count_matches_lines, left: "max(order.item_count) by order_id",
     right: "count(order_item.line_no) by order_id", tolerance: 0, on_fail: flag}
''', '''  - {name: item_count_matches, left: "max(order.item_count) by order_id",
     right: "count(order_item.line_no) by order_id", tolerance: 0, on_fail: flag}
''')
    p = pair.plan()
    assert classes(p) == {"reconcile:item_count_matches": [A], "reconcile:item_count_matches_lines": [R],
                          "reconcile:order_total_matches_items": [R]}
    # project-level: restates history, rebuilds no entity, replays nothing
    assert p.backfill_scope.restates_history and p.backfill_scope.entities == [] and p.replay_scope == []


@pytest.mark.parametrize("old,new,detail", [
    ("grain: one row per parcel handed to a carrier", "grain: one row per parcel", "grain changed"),
    ("key: [shipment_id]", "key: [shipment_id, carrier]", "key changed"),
    ("    key: [shipment_id]\n", "    key: [shipment_id]\n    scd: type2\n", "scd changed"),
    ("    key: [shipment_id]\n", "    key: [shipment_id]\n    materialization: incremental_by_key\n",
     "materialization changed: full -> incremental_by_key"),
])
def test_entity_shape_is_breaking(pair, old, new, detail):
    if "key: [shipment_id, carrier]" in new:
        carrier_to_key(pair.new)
    p = rule_case(pair, MODEL, old, new)
    change = next(c for c in p.changes if c.subject == "entity:shipment" and c.detail.startswith(detail))
    assert change.change_class is B and p.breaking


def carrier_to_key(tree: Tree):
    tree.edit(SHIPMENTS, '  carrier: {from: "$.carrier", transform: [trim, lower]}\n', "")
    tree.edit(SHIPMENTS, 'key:\n  shipment_id: {from: "$.id"}',
              'key:\n  shipment_id: {from: "$.id"}\n  carrier: {from: "$.carrier", transform: [trim, lower]}')


def test_optional_to_required_is_breaking_and_back_is_additive(pair):
    pair.edit(MODEL, "      carrier: {type: string}\n", "      carrier: {type: string, required: true}\n")
    p = pair.plan()
    assert classes(p) == {"field:shipment.carrier": [B]} and "optional -> required" in p.changes[0].detail
    back = plan(load_project(pair.new.root), load_project(pair.old.root))
    assert classes(back) == {"field:shipment.carrier": [A]}


def test_field_drop_is_breaking(pair):
    pair.edit(MODEL, "      carrier: {type: string}\n", "")
    pair.edit(SHIPMENTS, '  carrier: {from: "$.carrier", transform: [trim, lower]}\n', "")
    p = pair.plan()
    assert only(p, "field:shipment.carrier").change_class is B
    # a text column read as text (trim, lower) has no cast and so no implicit coercible rule to lose
    assert not [c for c in p.changes if c.subject.startswith("quality:")], p.changes


def test_type_widening_and_narrowing(pair):
    pair.edit(MODEL, "cost: {type: \"decimal(10,2)\"}", "cost: {type: \"decimal(14,2)\"}")
    widened = pair.plan()
    assert only(widened, "field:shipment.cost").change_class is W
    # the wider type is also a new parameter of the column's coercible rule: held rows may now cast
    assert only(widened, "quality:shipment.cost_coercible").change_class is R
    assert "shipment" in widened.backfill_scope.entities and widened.replay_scope == ["shipment"]
    narrowed = plan(load_project(pair.new.root), load_project(pair.old.root))
    assert only(narrowed, "field:shipment.cost").change_class is B


def test_field_added_is_additive_with_its_implicit_rule(pair):
    pair.edit(MODEL, "      cost: {type: \"decimal(10,2)\"}\n", "      cost: {type: \"decimal(10,2)\"}\n      label: {type: int}\n")
    pair.edit(SHIPMENTS, "unmapped:", '  label: {from: "$.label"}\nunmapped:')
    p = pair.plan()
    assert classes(p) == {"field:shipment.label": [A], "quality:shipment.label_coercible": [R],
                          "quarantine:shipment": [A]}
    assert "gains `label`" in only(p, "quarantine:shipment").detail
    assert p.replay_scope == []


def test_relationship_added_removed_changed(pair):
    pair.edit(MODEL, "cardinality: many_to_one}\n\nreconcile:", "cardinality: many_to_one}\n"
              "  - {name: shipment_for_customer, from: shipment, to: order, via: {order_id: order_id}, cardinality: many_to_one}\n"
              "\nreconcile:")
    assert classes(pair.plan()) == {"relationship:shipment_for_customer": [A]}
    assert classes(plan(load_project(pair.new.root), load_project(pair.old.root))) == {"relationship:shipment_for_customer": [B]}
    pair.edit(MODEL, "via: {order_id: order_id}, cardinality: many_to_one}\n\nreconcile:",
              "via: {order_id: order_id}, cardinality: one_to_one}\n\nreconcile:")
    assert classes(pair.plan()) == {"relationship:shipment_for_customer": [A]}
    pair.old.edit(MODEL, "cardinality: many_to_one}\n\nreconcile:", "cardinality: many_to_one}\n"
                  "  - {name: shipment_for_customer, from: shipment, to: order, via: {order_id: order_id}, cardinality: many_to_one}\n"
                  "\nreconcile:")
    change = only(pair.plan(), "relationship:shipment_for_customer")
    assert change.change_class is B and "cardinality many_to_one -> one_to_one" in change.detail


def test_entity_dropped_and_added(pair):
    pair.edit(MODEL, "    quality:\n      - {rule: referential, via: shipment_of_order, on_missing: flag}\n", "")
    p = pair.plan()
    assert only(p, "quality:shipment.shipment_of_order_referential").change_class is R
    dropped = Pair(pair.old.root.parent.parent / "drop")
    dropped.edit(MODEL, "  - {name: shipment_of_order, from: shipment, to: order, via: {order_id: order_id}, cardinality: many_to_one}\n", "")
    text = dropped.new.text(MODEL)
    start = text.index("  shipment:\n")
    dropped.new.write(MODEL, text[:start] + text[text.index("  product:"):])
    dropped.new.remove(SHIPMENTS)
    p = dropped.plan()
    assert classes(p) == {"entity:shipment": [B], "relationship:shipment_of_order": [B]}
    back = plan(load_project(dropped.new.root), load_project(dropped.old.root))
    assert classes(back) == {"entity:shipment": [A], "relationship:shipment_of_order": [A]}


def test_asserts_grants_classification_freshness_are_additive(pair):
    pair.edit(MODEL, "tier: {type: int, assert: {min: 0, max: 5}}", "tier: {type: int, assert: {min: 0, max: 9}}")
    pair.edit(MODEL, "grants: {select: [analyst]}", "grants: {select: [analyst, finance]}")
    pair.edit(MODEL, "email: {type: string, classification: pii}", "email: {type: string, classification: confidential}")
    pair.edit(CUSTOMERS, "freshness: {warn_after: 90m, error_after: 1d}", "freshness: {warn_after: 2h, error_after: 1d}")
    p = pair.plan()
    assert classes(p) == {"entity:customer": [A, A], "field:customer.email": [A], "field:customer.tier": [A]}
    assert p.commands == ["dbt build"]
    revoked = plan(load_project(pair.new.root), load_project(pair.old.root))
    assert B in classes(revoked)["entity:customer"], "revoking a grant breaks whoever read through it"


# -- renames ---------------------------------------------------------------------------------------
def rename_email(tree: Tree):
    tree.edit(MODEL, "email: {type: string, classification: pii}",
              "email_address: {type: string, classification: pii, renamed_from: email}")
    tree.edit(CUSTOMERS, '  email:\n    from: "$.email"', '  email_address:\n    from: "$.email"')


def test_rename_follows_rules_and_asserts(pair):
    rename_email(pair.new)
    p = pair.plan()
    assert classes(p) == {"field:customer.email_address": [N]}
    assert "renamed from `email`" in p.changes[0].detail
    # a rename restates nothing, but the column has to be rebuilt under its new name
    assert p.backfill_scope.entities == ["customer"] and not p.backfill_scope.restates_history
    assert p.replay_scope == []


def test_rename_of_a_key_and_referenced_column(pair):
    pair.edit(MODEL, "customer_id: {type: string, required: true}\n      email",
              "client_id: {type: string, required: true, renamed_from: customer_id}\n      email")
    pair.edit(MODEL, "key: [customer_id]", "key: [client_id]")
    pair.edit(MODEL, "via: {customer_id: customer_id}", "via: {customer_id: client_id}")
    pair.edit(CUSTOMERS, "key:\n  customer_id:", "key:\n  client_id:")
    p = pair.plan()
    assert classes(p) == {"field:customer.client_id": [N]}


def test_without_renamed_from_a_rename_is_a_drop_and_an_add(pair):
    rename_email(pair.new)
    pair.new.edit(MODEL, ", renamed_from: email}", "}")
    c = classes(pair.plan())
    assert c["field:customer.email"] == [B] and c["field:customer.email_address"] == [A]


def test_stale_renamed_from_is_refused(pair):
    pair.edit(MODEL, "carrier: {type: string}", "carrier: {type: string, renamed_from: carrier_name}")
    with pytest.raises(RenameTargetMissing, match="no field `carrier_name`") as raised:
        pair.plan()
    where = raised.value.location
    assert (where.file, where.line) == (pair.new.display(MODEL), pair.new.line_of(MODEL, "renamed_from: carrier_name"))
    assert where.path == "entities.shipment.fields.carrier.renamed_from"


def test_renamed_from_left_after_deploy_is_refused(pair):
    rename_email(pair.old)
    rename_email(pair.new)
    with pytest.raises(RenameTargetMissing, match="already deployed"):
        pair.plan()
    # a first deployment has nothing to rename from, and says nothing about it
    assert plan(None, load_project(pair.new.root)).changes


# -- propagation -------------------------------------------------------------------------------------
def test_child_of_a_replayed_parent_through_unknown_member_is_backfilled_with_its_limit(pair):
    # the shop walkthrough: order's in_enum relaxed; order_item (unknown_member) and shipment (flag)
    pair.edit(ORDERS, "{rule: in_enum, on_fail: quarantine}", "{rule: in_enum, on_fail: flag}")
    p = pair.plan()
    assert p.replay_scope == ["order"]
    assert p.backfill_scope.entities == ["order", "order_item", "shipment"]
    limits = p.backfill_scope.limits
    assert set(limits) == {"order_item", "shipment"}
    assert "'__unknown__' rewrite" in limits["order_item"] and "flag" in limits["shipment"]
    assert "rows bronze no longer holds" in limits["order_item"]
    text = to_text(p)
    assert "limits:" in text and limits["order_item"] in text
    assert p.commands == [
        "dbt build --full-refresh --select order__staged+ --exclude customer__quality order__quality order_item__quality shipment__quality tag:bloomery-threshold",
        "dbt run-operation bloomery.replay --args '{entity: order}'",
        # the children's own nodes only: what is downstream of them may have been replayed already
        "dbt build --full-refresh --select order_item__staged order_item order_item__reject order_item__ledger "
        "shipment__staged shipment shipment__reject shipment__ledger --exclude tag:bloomery-threshold",
        "dbt build",
    ]


def test_child_both_replayed_and_limited_is_rebuilt_before_its_replay(pair):
    # shipment reaches customer at quarantine (replayed) and order at flag (limited)
    pair.add_reference("shipment_of_customer", "shipment", "customer", ("customer_id", "customer_id"),
                       mapping=SHIPMENTS, source="customer", field_after="      shipment_id: {type: string}\n",
                       rule_after="      - {rule: referential, via: shipment_of_order, on_missing: flag}\n")
    pair.edit(CUSTOMERS, "{rule: in_enum, on_fail: quarantine}", "{rule: in_enum, on_fail: flag}")
    p = pair.plan()
    assert p.replay_scope == ["customer", "order", "shipment"]
    assert set(p.backfill_scope.limits) == {"order_item", "shipment"}
    assert p.commands == [
        "dbt build --full-refresh --select customer__staged+ --exclude customer__quality order__quality order_item__quality shipment__quality tag:bloomery-threshold",
        "dbt run-operation bloomery.replay --args '{entity: customer}'",
        "dbt run-operation bloomery.replay --args '{entity: order}'",
        "dbt build --full-refresh --select shipment__staged shipment shipment__reject shipment__ledger --exclude tag:bloomery-threshold",
        "dbt run-operation bloomery.replay --args '{entity: shipment}'",
        "dbt build --full-refresh --select order_item__staged order_item order_item__reject order_item__ledger --exclude tag:bloomery-threshold",
        "dbt build",
    ]


def test_limit_names_a_blocking_coverage_check(pair):
    pair.both(MODEL, "{name: every_order_has_items, relationship: item_of_order, on_fail: flag}",
              "{name: every_order_has_items, relationship: item_of_order, on_fail: fail}")
    pair.edit(ORDERS, "{rule: in_enum, on_fail: quarantine}", "{rule: in_enum, on_fail: flag}")
    limits = pair.plan().backfill_scope.limits
    assert "make coverage `every_order_has_items` non-blocking (on_fail: flag)" in limits["order_item"]
    assert "coverage" not in limits["shipment"]


def test_type2_parent_is_built_before_its_children_replay(pair):
    # a type 2 replay re-delivers its rows to bronze: they are admitted by the next run
    pair.both(MODEL, "    key: [customer_id]\n", "    key: [customer_id]\n    scd: type2\n")
    pair.edit(CUSTOMERS, "{rule: in_enum, on_fail: quarantine}", "{rule: in_enum, on_fail: flag}")
    p = pair.plan()
    assert p.replay_scope == ["customer", "order"]
    assert p.commands[:4] == [
        "dbt build --full-refresh --select customer__staged+ --exclude customer__quality order__quality order_item__quality shipment__quality tag:bloomery-threshold",
        "dbt run-operation bloomery.replay --args '{entity: customer}'",
        "dbt build --select customer__staged+ --exclude customer__quality order__quality order_item__quality shipment__quality tag:bloomery-threshold",
        "dbt run-operation bloomery.replay --args '{entity: order}'",
    ]
    assert any("type 2" in n for n in p.notes)


def _shipment_quarantined_against_order_item(pair):
    """Both sides: a shipment references its order line (order_id, line_no), not its order, and
    quarantines the shipments whose line is missing."""
    pair.both(MODEL, "{name: shipment_of_order, from: shipment, to: order, via: {order_id: order_id}",
              "{name: shipment_of_order, from: shipment, to: order_item, via: {order_id: order_id}")
    pair.both(MODEL, "{rule: referential, via: shipment_of_order, on_missing: flag}",
              "{rule: referential, via: shipment_of_order, on_missing: quarantine}")
    pair.both(MODEL, "      order_id: {type: string}\n      carrier", "      order_id: {type: string}\n      line_no: {type: int}\n      carrier")
    pair.both(MODEL, "via: {order_id: order_id}, cardinality: many_to_one}\n\nreconcile",
              "via: {order_id: order_id, line_no: line_no}, cardinality: many_to_one}\n\nreconcile")
    pair.both(SHIPMENTS, "unmapped:", '  line_no: {from: "$.line", transform: [to_int]}\nunmapped:')


def test_chain_of_three_quarantine_children_replays_parents_first(pair):
    # customer <- order <- order_item <- shipment... every link at on_missing: quarantine
    pair.both(MODEL, "{rule: referential, via: item_of_order, on_missing: unknown_member}",
              "{rule: referential, via: item_of_order, on_missing: quarantine}")
    _shipment_quarantined_against_order_item(pair)
    pair.edit(CUSTOMERS, "{rule: in_enum, on_fail: quarantine}", "{rule: in_enum, on_fail: flag}")
    p = pair.plan()
    assert p.replay_scope == ["customer", "order", "order_item", "shipment"]
    assert set(p.replay_reasons) == {"order", "order_item", "shipment"}
    assert "reaches `customer`" in p.replay_reasons["order"]
    assert "reaches `order_item`" in p.replay_reasons["shipment"]
    # only customer changed: only customer is backfilled; the children are replayed, not rebuilt
    assert p.backfill_scope.entities == ["customer"] and p.backfill_scope.limits == {}
    replays = [c for c in p.commands if "bloomery.replay" in c]
    assert replays == [f"dbt run-operation bloomery.replay --args '{{entity: {e}}}'"
                       for e in ("customer", "order", "order_item", "shipment")]
    assert p.commands[0].startswith("dbt build --full-refresh --select customer__staged+")
    assert p.commands[-1] == "dbt build"


def test_chain_stops_at_a_flag_link(pair):
    # shipment -(quarantine)-> order_item -(unknown_member)-> order: order_item keeps its rows,
    # so its admitted set does not change and shipment has nothing to re-judge
    _shipment_quarantined_against_order_item(pair)
    pair.edit(ORDERS, "{rule: in_enum, on_fail: quarantine}", "{rule: in_enum, on_fail: flag}")
    p = pair.plan()
    assert p.replay_scope == ["order"]
    assert set(p.backfill_scope.limits) == {"order_item"}


def _customer_order_cycle(tmp_path):
    """Two copies of the full tree's IR with a cycle built on the IR itself: customer -> order ->
    customer, both links at quarantine."""
    base = load_project(Tree.copy("full", tmp_path).root)
    old, new = copy.deepcopy(base), copy.deepcopy(base)
    for ir in (old, new):
        customer = ir.entities["customer"]
        favourite = Rule("favourite_order_referential", "referential", "email", Disposition.QUARANTINE, "x",
                         relationship="favourite_order", parent="order", pairs=(("email", "order_id"),),
                         on_missing="quarantine")
        ir.entities["customer"] = replace(customer, rules=customer.rules + (favourite,))
    return old, new


def _edit_rule(ir, entity: str, name: str, **changes):
    """Give rule `name` of `entity` new values, in a project IR assembled by a test."""
    e = ir.entities[entity]
    ir.entities[entity] = replace(e, rules=tuple(replace(r, **changes) if r.name == name else r for r in e.rules))


def test_cycle_is_broken_at_its_first_member_by_name(tmp_path):
    old, new = _customer_order_cycle(tmp_path)
    # a leaf relaxed: nothing reaches order_item, so the cycle above it is not involved
    _edit_rule(new, "order_item", "quantity_range", disposition=Disposition.FLAG)
    assert plan(old, new).replay_scope == ["order_item"]
    _edit_rule(new, "order", "order_of_customer_referential", disposition=Disposition.FLAG, on_missing="flag")
    p = plan(old, new)
    # order is relaxed and customer reaches it at quarantine. order still reads customer (at flag
    # now), which orders it after customer too: a cycle, broken at customer, the first by name
    assert p.replay_scope == ["customer", "order", "order_item"]
    assert "reaches `order`" in p.replay_reasons["customer"]


def test_cycle_of_referential_rules_from_specs(pair):
    # customer -> order (favourite order) and order -> customer, both at quarantine
    pair.add_reference("favourite_order", "customer", "order", ("favourite_order_id", "order_id"),
                       mapping=CUSTOMERS, source="fav", field_after="      nickname: {type: string, assert: {regex: '^\\w+$'}}\n",
                       rule_after="    grants: {select: [analyst]}\n", opens_quality=True)
    pair.edit(ORDERS, "{rule: in_enum, on_fail: quarantine}", "{rule: in_enum, on_fail: flag}")
    p = pair.plan()
    # order's rows come back; customer reaches order; the cycle is broken at customer (first by name)
    assert p.replay_scope == ["customer", "order"]
    assert "reaches `order`" in p.replay_reasons["customer"]
    assert [c for c in p.commands if "replay" in c] == [
        "dbt run-operation bloomery.replay --args '{entity: customer}'",
        "dbt run-operation bloomery.replay --args '{entity: order}'"]


def test_parents_first_order_with_a_cycle():
    def ent(*parents):
        return SimpleNamespace(rules=[Rule(f"r_{p}_referential", "referential", None, Disposition.QUARANTINE, "x",
                                           relationship=f"r_{p}", parent=p, on_missing="quarantine") for p in parents],
                               quarantine={"retention": "1d"})
    # a -> b -> c -> a is a cycle (child -> parent); e is a's other parent; d hangs below c
    entities = {"a": ent("b", "e"), "b": ent("c"), "c": ent("a"), "d": ent("c"), "e": ent()}
    assert parents_first(set(entities), entities) == ["e", "a", "c", "b", "d"]
    # two cycles: the one that waits on nothing outside itself goes first
    entities = {"x": ent("y"), "y": ent("x"), "b": ent("c", "x"), "c": ent("b")}
    assert parents_first(set(entities), entities) == ["x", "y", "b", "c"]
    # propagation through the cycle terminates and reaches every member
    entities = {"a": ent("b"), "b": ent("c"), "c": ent("a"), "d": ent("c")}
    assert propagate({"a"}, entities).replay == {"a", "b", "c", "d"}


def test_cycle_in_a_plan(tmp_path):
    old, new = _customer_order_cycle(tmp_path)
    tier = new.entities["customer"].rule_named("tier_in_set")
    _edit_rule(new, "customer", "tier_in_set", args=dict(tier.args, values=tier.args["values"] + [6]))
    p = plan(old, new)
    # customer <-> order at quarantine: a cycle, broken at customer (first by name)
    assert p.replay_scope == ["customer", "order"]
    assert "reaches `customer`" in p.replay_reasons["order"]


# -- commands ----------------------------------------------------------------------------------------
def test_commands_follow_the_plan_order(pair):
    pair.edit(ORDERS, "{rule: in_enum, on_fail: quarantine}", "{rule: in_enum, on_fail: flag}")
    pair.edit(MODEL, "quarantine: {retention: 48h}", "quarantine: {retention: 7d}")
    p = pair.plan()
    assert p.commands.index("dbt run-operation bloomery.replay --args '{entity: order}'") == 1
    assert p.commands[-1] == "dbt build"
    text = to_text(p)
    assert text.rstrip("\n").split("\n")[-len(p.commands):] == [f"  {c}" for c in p.commands]
    assert text.split("\n")[-len(p.commands) - 2] == "run, in this order:"
    assert "RESTATING" in text and "quality:order.status_in_enum" in text


# -- snapshot and CLI --------------------------------------------------------------------------------
def test_compile_writes_a_snapshot_plan_reads(pair, tmp_path, capsys):
    out = tmp_path / "models" / "bloomery"
    assert bloomery_main(["compile", "--specs", str(pair.old.root), "--out", str(out)]) == 0
    assert snapshot_path(out).is_file()
    assert not list(snapshot_path(out).parent.glob("*.yml")) and not list(snapshot_path(out).parent.glob("*.yaml"))
    compiled, notes = load_compiled(out)
    assert notes == [] and plan(compiled, load_project(pair.old.root)).empty
    pair.edit(ORDERS, "{rule: in_enum, on_fail: quarantine}", "{rule: in_enum, on_fail: flag}")
    capsys.readouterr()
    assert bloomery_main(["plan", "--new", str(pair.new.root), "--against-compiled", str(out), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(doc) >= {"changes", "backfill_scope", "replay_scope", "commands"}
    assert doc["changes"] == [{"subject": "quality:order.status_in_enum", "class": "restating",
                               "detail": "disposition quarantine -> flag; replay: rows it quarantined are now kept "
                                         "with a flag"}]
    assert doc["backfill_scope"]["entities"] == ["order", "order_item", "shipment"]
    assert doc["backfill_scope"]["restates_history"] is True
    assert doc["replay_scope"] == ["order"]
    # a second compile (of the new specs) moves the snapshot along
    assert bloomery_main(["compile", "--specs", str(pair.new.root), "--out", str(out)]) == 0
    capsys.readouterr()
    assert bloomery_main(["plan", "--new", str(pair.new.root), "--against-compiled", str(out)]) == 0
    assert capsys.readouterr().out.startswith("no changes")


def test_snapshot_from_another_bloomery_is_noted(tmp_path):
    specs = Tree.copy("shop", tmp_path).root
    out = tmp_path / "out"
    path = write_snapshot(specs, out)
    doc = json.loads(path.read_text())
    doc["bloomery_version"] = "0.0.1"
    path.write_text(json.dumps(doc))
    _, notes = load_compiled(out)
    assert notes and "0.0.1" in notes[0]
    doc["snapshot_version"] = 99
    path.write_text(json.dumps(doc))
    with pytest.raises(PlanError, match="snapshot version 99"):
        load_compiled(out)
    path.write_text("{not json")
    with pytest.raises(PlanError, match="not a bloomery snapshot"):
        load_compiled(out)


def test_cli_plan_text_and_exit_codes(pair, capsys):
    pair.edit(MODEL, "key: [shipment_id]", "key: [shipment_id, carrier]")
    carrier_to_key(pair.new)
    args = ["plan", "--old", str(pair.old.root), "--new", str(pair.new.root)]
    capsys.readouterr()
    assert bloomery_main(args) == 0
    text = capsys.readouterr().out
    assert "BREAKING  entity:shipment  key changed: [shipment_id] -> [shipment_id, carrier]" in text
    assert "breaking change(s)" in text
    assert bloomery_main(args + ["--fail-on-breaking"]) == 3
    capsys.readouterr()
    # no --old: a first deployment
    assert bloomery_main(["plan", "--new", str(pair.new.root), "--format", "json"]) == 0
    assert {c["class"] for c in json.loads(capsys.readouterr().out)["changes"]} == {"additive"}
    # a snapshot folder that holds none, and a broken new tree, are refusals (exit 1)
    assert bloomery_main(["plan", "--new", str(pair.new.root), "--against-compiled", str(pair.old.root)]) == 1
    pair.new.edit(MODEL, "key: [shipment_id, carrier]", "key: [shipment_idd, carrier]")
    assert bloomery_main(args) == 1
    assert "MissingReference" in capsys.readouterr().err


def test_cli_stale_rename_is_a_refusal(pair, capsys):
    pair.edit(MODEL, "carrier: {type: string}", "carrier: {type: string, renamed_from: carrier_name}")
    assert bloomery_main(["plan", "--old", str(pair.old.root), "--new", str(pair.new.root), "--format", "json"]) == 1
    (error,) = json.loads(capsys.readouterr().out)
    assert error["error"] == "RenameTargetMissing" and error["stage"] == "plan"


def test_a_partition_bucket_changed_is_restating(pair):
    """`days(ts)` -> `months(ts)`: the column is the same, every `unique` slice moves."""
    pair.edit(MODEL, 'partition_by: ["days(ordered_at)"]', 'partition_by: ["months(ordered_at)"]')
    change = only(pair.plan(), "entity:order")
    assert change.change_class == R and "days(ordered_at)" in change.detail and "months(ordered_at)" in change.detail
