"""Valid spec trees compile clean, and the tree called `full` really exercises the whole surface."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import yaml

from bloomery.resolve import Disposition, check_project
from bloomery.transforms.chain import REGISTRY, normalize_step
from spec_trees import VALID

TREES = sorted(p.name for p in VALID.iterdir() if p.is_dir())
RULE_KINDS = {"coercible", "not_null", "range", "length", "pattern", "in_enum", "in_set", "unique", "normalize",
              "charset", "expression", "referential"}


def ir_of(project) -> dict:
    return {k: v for k, v in dataclasses.asdict(project).items() if k != "locate"}


@pytest.mark.parametrize("name", TREES)
def test_valid_tree_checks_clean(name):
    project = check_project(VALID / name)
    assert project.entities
    assert project.files == sorted(project.files)


@pytest.mark.parametrize("name", TREES)
def test_compiling_twice_gives_the_same_ir(name):
    assert ir_of(check_project(VALID / name)) == ir_of(check_project(VALID / name))


@pytest.fixture(scope="module")
def full():
    return check_project(VALID / "full")


def test_full_has_several_entities_and_a_merged_one(full):
    assert len(full.entities) >= 5
    assert len(full.entities["product"].mappings) == 2
    assert not full.entities["product"].quality


def test_full_has_every_rule_kind(full):
    rules = [r for e in full.entities.values() for r in e.rules]
    assert {r.kind for r in rules} == RULE_KINDS
    on_missing = {r.on_missing for r in rules if r.kind == "referential"}
    assert on_missing == {"unknown_member", "quarantine", "flag"}
    assert {r.disposition.spec for r in rules} == {"flag", "quarantine", "fail"}


def test_full_uses_every_transform_but_convert():
    used = set()
    for path in (VALID / "full").glob("mapping_*.yaml"):
        doc = yaml.safe_load(path.read_text())
        for section in ("key", "fields"):
            for spec in (doc.get(section) or {}).values():
                used.update(normalize_step(step)[0] for step in spec.get("transform", []))
    assert used == set(REGISTRY) - {"convert"}


def test_full_reconcile_checks_reach_the_ir(full):
    by_name = {r["name"]: r for r in full.reconcile}
    check = by_name["order_total_matches_items"]
    assert check["left"] == {"agg": None, "entity": "order", "column": "total", "by": ["order_id"],
                             "column_type": {"name": "decimal", "precision": 18, "scale": 2}}
    assert check["right"]["agg"] == "sum" and check["right"]["by"] == ["order_id"]
    assert (check["tolerance"], check["on_fail"], check["keys"]) == ("0.01", "fail", ["order_id"])
    assert (check["entity"], check["mapping"]) == ("order", "shop__orders->order")
    assert by_name["item_count_matches_lines"]["tolerance"] == "0"
    assert by_name["item_count_matches_lines"]["right"]["agg"] == "count"


def test_full_coverage_checks_reach_the_ir(full):
    assert full.coverage == [
        {"name": "every_order_has_items", "relationship": "item_of_order", "from": "order_item", "to": "order",
         "pairs": [["order_id", "order_id"]], "min": 1, "on_fail": "flag", "path": "coverage[0]"},
        {"name": "every_customer_ordered_twice", "relationship": "order_of_customer", "from": "order",
         "to": "customer", "pairs": [["customer_id", "customer_id"]], "min": 2, "on_fail": "fail",
         "path": "coverage[1]"},
    ]


def test_full_reads_the_catalog(full):
    assert any(f.endswith("catalog.yaml") for f in full.files)


def test_dedupe_column_coercible_is_forced_to_fail(full):
    order = full.entities["order"]
    assert order.rule_named("ordered_at_coercible").disposition is Disposition.FAIL
    assert order.rule_named("total_coercible").disposition is Disposition.QUARANTINE
    # a column read as text has no cast, so nothing to be coercible about (spec-reference 3.1);
    # one read from a JSON document has: a document that does not parse
    assert order.rule_named("order_id_coercible") is None
    assert order.rule_named("channel_coercible").disposition is Disposition.QUARANTINE
    # a nullifying step before a cast does not exempt the column: `coercible` is judged at the cast
    tier = full.entities["customer"].rule_named("tier_coercible")
    assert tier is not None and tier.implicit and tier.disposition is Disposition.QUARANTINE


def test_a_tree_without_reconcile_or_coverage_has_empty_lists():
    project = check_project(VALID / "shop")
    assert project.reconcile == [] and project.coverage == []


def test_locate_points_into_the_right_file(full):
    loc = full.locate("mapping[shop__orders->order].fields.total.transform[1]")
    assert Path(loc.file).name == "mapping_orders.yaml" and loc.line > 1
    loc = full.locate("reconcile[1].right")
    assert Path(loc.file).name == "entity_model.yaml"


SHARED_SHOP = Path("/work/shared/examples/shop/specs")


@pytest.mark.skipif(not SHARED_SHOP.is_dir(), reason="shared example not on this machine")
def test_shop_fixture_is_the_shared_example_unchanged():
    for path in sorted(SHARED_SHOP.glob("*.yaml")):
        assert (VALID / "shop" / path.name).read_text() == path.read_text()
