"""The v1 JSON Schemas: well-formed, documented for editors, and exactly the spec grammar.

Instances are prepared the way the loader prepares them before validation: YAML loaded with
safe semantics, every string whitespace-stripped, every YAML float turned into a Decimal.
"""
from __future__ import annotations

import json
import textwrap
from decimal import Decimal
from pathlib import Path

import pytest
import yaml
from jsonschema import Draft202012Validator

ROOT = Path(__file__).parents[3]
SCHEMAS = ROOT / "schemas"
SHOP_SPECS = Path("/work/shared/examples/shop/specs")

KINDS = {
    "spec_version": "entity_model",
    "mapping_version": "mapping",
    "catalog_version": "catalog",
}


def load_schema(kind: str) -> dict:
    return json.loads((SCHEMAS / f"{kind}.schema.json").read_text())


def validator(kind: str) -> Draft202012Validator:
    return Draft202012Validator(load_schema(kind))


def loader_view(node):
    """What the loader validates: stripped strings, YAML floats as Decimal."""
    if isinstance(node, dict):
        return {loader_view(k): loader_view(v) for k, v in node.items()}
    if isinstance(node, list):
        return [loader_view(v) for v in node]
    if isinstance(node, str):
        return node.strip()
    if isinstance(node, float):
        return Decimal(repr(node))
    return node


def parse(text: str):
    return loader_view(yaml.safe_load(textwrap.dedent(text)))


def kind_of(doc: dict) -> str:
    (key,) = [k for k in KINDS if k in doc]
    return KINDS[key]


def errors(doc: dict) -> list:
    return list(validator(kind_of(doc)).iter_errors(doc))


# -- the schemas themselves ------------------------------------------------------------------
@pytest.mark.parametrize("kind", sorted(KINDS.values()))
def test_schema_is_valid_draft_2020_12(kind):
    schema = load_schema(kind)
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] == f"https://bloomery.dev/schemas/v1/{kind}.schema.json"
    assert schema["title"] and schema["description"]


def walk(node, where="#"):
    """Yield (pointer, schema) for every subschema that documents the instance.

    `if` and `not` subschemas are predicates, not documentation, and are skipped.
    """
    if not isinstance(node, dict):
        return
    yield where, node
    for key, value in node.items():
        if key in ("if", "not", "examples", "default", "const", "enum"):
            continue
        if key in ("properties", "$defs", "patternProperties", "dependentSchemas"):
            for name, sub in value.items():
                yield from walk(sub, f"{where}/{key}/{name}")
        elif isinstance(value, dict):
            yield from walk(value, f"{where}/{key}")
        elif isinstance(value, list) and key in ("allOf", "anyOf", "oneOf", "prefixItems"):
            for i, sub in enumerate(value):
                yield from walk(sub, f"{where}/{key}/{i}")


@pytest.mark.parametrize("kind", sorted(KINDS.values()))
def test_every_property_has_title_description_examples(kind):
    missing = []
    for where, node in walk(load_schema(kind)):
        for name, sub in node.get("properties", {}).items():
            for annotation in ("title", "description", "examples"):
                if not isinstance(sub, dict) or not sub.get(annotation):
                    missing.append(f"{where}/properties/{name}: {annotation}")
        for name, sub in node.get("$defs", {}).items():
            for annotation in ("title", "description", "examples"):
                if not sub.get(annotation):
                    missing.append(f"{where}/$defs/{name}: {annotation}")
    assert missing == []


@pytest.mark.parametrize("kind", sorted(KINDS.values()))
def test_every_object_with_properties_is_closed(kind):
    open_objects = [
        where for where, node in walk(load_schema(kind))
        if "properties" in node and node.get("additionalProperties") is not False
    ]
    assert open_objects == []


def test_shared_defs_agree_across_files():
    seen: dict[str, tuple[str, dict]] = {}
    for kind in sorted(KINDS.values()):
        for name, sub in load_schema(kind)["$defs"].items():
            if name in seen:
                assert sub == seen[name][1], f"$defs/{name} differs: {seen[name][0]} vs {kind}"
            else:
                seen[name] = (kind, sub)


# -- valid documents -------------------------------------------------------------------------
SHOP_FILES = sorted(SHOP_SPECS.glob("*.yaml")) if SHOP_SPECS.is_dir() else []


@pytest.mark.skipif(not SHOP_FILES, reason=f"shop example specs not found in {SHOP_SPECS}")
@pytest.mark.parametrize("path", SHOP_FILES, ids=lambda p: p.name)
def test_shop_example_specs_validate(path):
    doc = loader_view(yaml.safe_load(path.read_text()))
    assert [e.message for e in errors(doc)] == []


VALID = {
    "entity_model_full": """
        spec_version: 1
        entities:
          order:
            grain: one row per order
            key: [order_id]
            scd: type1
            materialization: incremental_by_partition
            partition_by: ["days(ordered_at)", country]
            fields:
              order_id: {type: string, required: true, renamed_from: order_ref}
              country: {type: string, classification: internal,
                        assert: {not_null: true, enum: [FR, DE], regex: '^[A-Z]{2}$'}}
              total: {type: "decimal(18, 2)", canonical: order_total, assert: {min: 0, max: 0.5}}
              ordered_at: {type: timestamp, assert: {min: "2015-01-01"}}
              payload: {type: variant}
            dedupe: {keep: latest_by, field: _ingested_at}
            quarantine: {retention: 12w, redact: ["$.notes", "$.payload.card"]}
            grants: {select: [analyst, finance]}
            quality:
              - {rule: expression, name: total_not_negative, expr: "total >= 0", on_fail: fail}
              - {rule: referential, via: order_of_customer, on_missing: flag}
          customer:
            grain: one row per customer
            key: [customer_id]
            scd: type2
            fields:
              customer_id: {type: string}
        relationships:
          - {name: order_of_customer, from: order, to: customer,
             via: {customer_id: customer_id}, cardinality: many_to_one}
        reconcile:
          - {name: totals_match, left: order.total, right: "sum(order.total) by order_id",
             tolerance: "0.01", on_fail: fail}
          - {name: totals_match_exactly, left: order.total, right: order.total,
             tolerance: 0, on_fail: flag}
        coverage:
          - {name: every_customer_orders, relationship: order_of_customer, on_fail: flag}
          - {name: every_customer_orders_twice, relationship: order_of_customer, min: 2,
             on_fail: fail}
    """,
    "mapping_every_rule_kind": """
        mapping_version: 1
        source: dirty__numerics
        target: order
        freshness: {error_after: 90m}
        key:
          order_id: {from: "$.id"}
        fields:
          total:
            from: "$.payload.amount"
            transform:
              - trim
              - {strip_suffix: " EUR"}
              - {name: to_decimal, args: [18, 2]}
              - {multiply: "0.01"}
              - {coalesce: true}
            quality:
              - {rule: coercible, on_fail: fail}
              - {rule: not_null, on_fail: quarantine}
              - {rule: range, min: "0.5", on_fail: flag}
              - {rule: range, min: 0.5, max: 100, on_fail: flag}
              - {rule: range, max: "2030-12-31T23:59:59", on_fail: flag}
              - {rule: length, min: 0, on_fail: flag}
              - {rule: length, max: 10, on_fail: flag}
              - {rule: pattern, regex: '^[0-9]+$', on_fail: quarantine}
              - {rule: in_enum, on_fail: quarantine}
              - {rule: in_set, values: [A, 1], on_fail: quarantine}
              - {rule: unique, on_fail: fail}
              - {rule: normalize, form: nfc, on_fail: flag}
              - {rule: charset, allow: ["U+0020-U+007E", "U+00E9"], on_fail: flag}
              - {rule: charset, forbid: ["U+10FFFF"], on_fail: flag}
          status:
            from: "$.state"
            transform: [lower, {enum_map: [new, placed, sent, shipped]}, {name: trim}]
        unmapped: ["$._load_id", "$._ingested_at", "$._source_row_id"]
    """,
    "mapping_minimal": """
        mapping_version: 1
        source: crm__customers
        target: customer
    """,
    "catalog": """
        catalog_version: 1
        vertical: retail
        canonical_fields:
          order_total:
            entity: order
            type: "decimal(18,2)"
            description: Order total after tax
            unit: currency
            tax_basis: gross
            currency: EUR
            recipes: [{id: from_parts, requires: [net, tax], expr: net + tax}]
        canonical_relationships:
          - {name: order_of_customer, from: order, to: customer, via: customer_id}
        metric_templates:
          - {name: revenue, agg: sum, field: order_total}
        date_dimension: {name: dim_date, grain: day, start_year: 2015, end_year: 2035}
    """,
}


@pytest.mark.parametrize("name", sorted(VALID))
def test_valid_documents(name):
    doc = parse(VALID[name])
    assert [f"{list(e.absolute_path)}: {e.message}" for e in errors(doc)] == []


# -- invalid documents: one broken thing each, and where it is reported ------------------------
ENTITY = """
    spec_version: 1
    entities:
      customer:
        grain: one row per customer
        key: [customer_id]
        fields:
          customer_id: {type: string}
        %s
    %s
"""

MAPPING = """
    mapping_version: 1
    source: crm__customers
    target: customer
    key:
      customer_id: {from: "$.id", transform: [trim]}
    fields:
      email:
        from: "$.email"
        transform: %s
        quality: [%s]
    %s
"""


def entity(entity_extra: str = "", top_extra: str = "") -> str:
    return ENTITY % (entity_extra, top_extra)


def mapping(transform: str = "[trim]", rule: str = "", top_extra: str = "") -> str:
    return MAPPING % (transform, rule, top_extra)


Q = ["fields", "email", "quality", 0]
T = ["fields", "email", "transform"]
E = ["entities", "customer"]

INVALID = {
    # versions
    "wrong version": (entity().replace("spec_version: 1", "spec_version: 2"), ["spec_version"]),
    "float version": (entity().replace("spec_version: 1", "spec_version: 1.0"), ["spec_version"]),
    "bool version": (entity().replace("spec_version: 1", "spec_version: true"), ["spec_version"]),
    "string version": (mapping().replace("mapping_version: 1", "mapping_version: '1'"),
                       ["mapping_version"]),
    # unknown keys
    "unknown top-level key": (entity(top_extra="relations: []"), []),
    "unknown entity key": (entity("dedup: {keep: latest_by, field: x}"), E),
    "unknown field key": (entity().replace("{type: string}", "{type: string, nullable: true}"),
                          E + ["fields", "customer_id"]),
    "unknown rule key": (mapping(rule="{rule: range, min: 1, regex: '^a$', on_fail: flag}"), Q),
    "unknown mapping key": (mapping(top_extra="marts: []"), []),
    # entity grammar
    "bad retention unit": (entity("quarantine: {retention: 3m}"),
                           E + ["quarantine", "retention"]),
    "bad retention zero": (entity("quarantine: {retention: 0d}"),
                           E + ["quarantine", "retention"]),
    "retention missing": (entity("quarantine: {redact: ['$.notes']}"), E + ["quarantine"]),
    "bad redact path": (entity("quarantine: {retention: 1d, redact: [notes]}"),
                        E + ["quarantine", "redact", 0]),
    "keep not latest_by": (entity("dedupe: {keep: earliest_by, field: _ingested_at}"),
                           E + ["dedupe", "keep"]),
    "empty key": (entity().replace("key: [customer_id]", "key: []"), E + ["key"]),
    "bad type string": (entity().replace("{type: string}", "{type: varchar}"),
                        E + ["fields", "customer_id", "type"]),
    "decimal without scale": (entity().replace("{type: string}", "{type: 'decimal(12)'}"),
                              E + ["fields", "customer_id", "type"]),
    "reserved field name": (entity().replace("customer_id: {type", "_load_id: {type"),
                            E + ["fields"]),
    "bad entity name": (entity().replace("  customer:", "  Customer:"), ["entities"]),
    "bad classification": (entity().replace("{type: string}", "{type: string, classification: secret}"),
                           E + ["fields", "customer_id", "classification"]),
    "empty grants": (entity("grants: {select: []}"), E + ["grants", "select"]),
    "bad partition bucket": (entity("partition_by: ['weeks(signed_up_on)']"),
                             E + ["partition_by", 0]),
    "scd type3": (entity("scd: type3"), E + ["scd"]),
    # entity rules
    "expression on_fail missing": (
        entity("quality: [{rule: expression, name: x, expr: 'a > 0'}]"), E + ["quality", 0]),
    "expression on_fail repair": (
        entity("quality: [{rule: expression, name: x, expr: 'a > 0', on_fail: repair}]"),
        E + ["quality", 0, "on_fail"]),
    "expression bad name": (
        entity("quality: [{rule: expression, name: Bad-Name, expr: 'a > 0', on_fail: flag}]"),
        E + ["quality", 0, "name"]),
    "referential with on_fail": (
        entity("quality: [{rule: referential, via: r, on_missing: flag, on_fail: fail}]"),
        E + ["quality", 0]),
    "referential on_missing fail": (
        entity("quality: [{rule: referential, via: r, on_missing: fail}]"),
        E + ["quality", 0, "on_missing"]),
    "unknown entity rule": (entity("quality: [{rule: unique, on_fail: flag}]"),
                            E + ["quality", 0, "rule"]),
    # document-level checks
    "empty relationship via": (
        entity(top_extra="relationships: [{name: r, from: a, to: b, via: {}, "
                         "cardinality: many_to_one}]"),
        ["relationships", 0, "via"]),
    "bad cardinality": (
        entity(top_extra="relationships: [{name: r, from: a, to: b, via: {x: y}, "
                         "cardinality: many_to_many}]"),
        ["relationships", 0, "cardinality"]),
    "unquoted float tolerance": (
        entity(top_extra="reconcile: [{name: c, left: a.x, right: b.x, tolerance: 0.01, "
                         "on_fail: flag}]"),
        ["reconcile", 0, "tolerance"]),
    "negative tolerance": (
        entity(top_extra="reconcile: [{name: c, left: a.x, right: b.x, tolerance: '-1', "
                         "on_fail: flag}]"),
        ["reconcile", 0, "tolerance"]),
    "reconcile on_fail quarantine": (
        entity(top_extra="reconcile: [{name: c, left: a.x, right: b.x, tolerance: '0', "
                         "on_fail: quarantine}]"),
        ["reconcile", 0, "on_fail"]),
    "coverage min zero": (
        entity(top_extra="coverage: [{name: c, relationship: r, min: 0, on_fail: fail}]"),
        ["coverage", 0, "min"]),
    # field rules
    "on_fail missing": (mapping(rule="{rule: not_null}"), Q),
    "on_fail repair": (mapping(rule="{rule: not_null, on_fail: repair}"), Q + ["on_fail"]),
    "repair block": (mapping(rule="{rule: not_null, on_fail: flag, repair: {via: x@1}}"), Q),
    "unknown rule kind": (mapping(rule="{rule: regex, on_fail: flag}"), Q + ["rule"]),
    "range without bound": (mapping(rule="{rule: range, on_fail: flag}"), Q),
    "range bound bool": (mapping(rule="{rule: range, min: true, on_fail: flag}"), Q + ["min"]),
    "length negative": (mapping(rule="{rule: length, min: -1, on_fail: flag}"), Q + ["min"]),
    "length string bound": (mapping(rule="{rule: length, max: '3', on_fail: flag}"), Q + ["max"]),
    "length without bound": (mapping(rule="{rule: length, on_fail: flag}"), Q),
    "pattern without regex": (mapping(rule="{rule: pattern, on_fail: flag}"), Q),
    "in_set empty": (mapping(rule="{rule: in_set, values: [], on_fail: flag}"), Q + ["values"]),
    "in_set float member": (mapping(rule="{rule: in_set, values: [1.5], on_fail: flag}"),
                            Q + ["values", 0]),
    "normalize nfd": (mapping(rule="{rule: normalize, form: nfd, on_fail: flag}"),
                      Q + ["form"]),
    "charset allow and forbid": (
        mapping(rule="{rule: charset, allow: ['U+0041'], forbid: ['U+0042'], on_fail: flag}"), Q),
    "charset neither": (mapping(rule="{rule: charset, on_fail: flag}"), Q),
    "charset lowercase hex": (mapping(rule="{rule: charset, allow: ['u+00e9'], on_fail: flag}"),
                              Q + ["allow", 0]),
    # transforms
    "float transform arg": (mapping(transform="[{multiply: 0.01}]"), T + [0, "multiply"]),
    "float in arg list": (mapping(transform="[{to_decimal: [12.5, 4]}]"),
                          T + [0, "to_decimal", 0]),
    "step link": (mapping(transform="[{step: 'clean@1'}]"), T + [0]),
    "two-key step": (mapping(transform="[{trim: [], upper: []}]"), T + [0]),
    "named step typo": (mapping(transform="[{name: split_part, arg: ['-', 1]}]"), T + [0]),
    "numeric step": (mapping(transform="[42]"), T + [0]),
    # mapping shape
    "recipe field": (mapping().replace('from: "$.email"', "recipe: net_from_gross"),
                     ["fields", "email"]),
    "bad source path": (mapping().replace('"$.email"', '"payload.email"'),
                        ["fields", "email", "from"]),
    "empty freshness": (mapping(top_extra="freshness: {}"), ["freshness"]),
    "bad freshness unit": (mapping(top_extra="freshness: {warn_after: 6mo}"),
                           ["freshness", "warn_after"]),
    "bad unmapped path": (mapping(top_extra="unmapped: ['$.a-b']"), ["unmapped", 0]),
    "target not an entity name": (mapping().replace("target: customer", "target: Customer"),
                                  ["target"]),
    "source missing": (mapping().replace("source: crm__customers", ""), []),
    # catalog
    "catalog year as string": (
        "catalog_version: 1\ndate_dimension: {start_year: '2015', end_year: 2035}",
        ["date_dimension", "start_year"]),
    "catalog unknown key": ("catalog_version: 1\nverticals: retail", []),
    "catalog bad unit": ("catalog_version: 1\ncanonical_fields: {x: {unit: euro}}",
                         ["canonical_fields", "x", "unit"]),
}


@pytest.mark.parametrize("name", sorted(INVALID))
def test_invalid_documents_fail_where_expected(name):
    text, where = INVALID[name]
    doc = parse(text)
    found = errors(doc)
    assert found, f"{name}: accepted"
    paths = [list(e.absolute_path) for e in found]
    assert where in paths, f"{name}: errors at {paths}, expected one at {where}"


def test_templates_are_valid_when_unbroken():
    """The negative cases start from valid documents, so each fails for its one reason."""
    assert errors(parse(entity())) == []
    assert errors(parse(mapping(rule="{rule: not_null, on_fail: flag}"))) == []


@pytest.mark.parametrize("kind", sorted(KINDS.values()))
def test_examples_satisfy_their_own_schema(kind):
    """Hover examples are copied by users: each must be valid where it is shown."""
    root = validator(kind)
    wrong = []
    for where, node in walk(load_schema(kind)):
        for example in node.get("examples", []):
            for error in root.evolve(schema=node).iter_errors(loader_view(example)):
                wrong.append(f"{where}: {example!r}: {error.message}")
    assert wrong == []
