"""The compiled schema check (fast path) agrees with jsonschema: same yes/no on every document."""
from __future__ import annotations

import random

import pytest

from bloomery.spec.documents import VERSION_KEYS, fast_check, validator
from bloomery.spec.fast_schema import compile_schema
from bloomery.spec.yaml_source import load_yaml
from spec_trees import VALID
from test_fuzz_specs import BASE, mutate_data
from test_schemas import INVALID, VALID as SCHEMA_VALID, parse

SCHEMA_OF = {key: schema for key, (_, schema) in VERSION_KEYS.items() if schema}


def schema_file(doc) -> str | None:
    present = [k for k in SCHEMA_OF if isinstance(doc, dict) and k in doc]
    return SCHEMA_OF[present[0]] if len(present) == 1 else None


def agree(doc, file: str) -> bool:
    slow = not any(True for _ in validator(file).iter_errors(doc))
    return fast_check(file)(doc) == slow


def loaded(text: str):
    doc, errors = load_yaml(text, "x.yaml")
    return doc.value if doc is not None and not errors else None


@pytest.mark.parametrize("name", sorted(SCHEMA_VALID))
def test_schema_examples_valid_both_ways(name):
    doc = parse(SCHEMA_VALID[name])
    assert fast_check(schema_file(doc))(doc)


@pytest.mark.parametrize("name", sorted(INVALID))
def test_schema_counter_examples_invalid_both_ways(name):
    doc = parse(INVALID[name][0])
    file = schema_file(doc)
    if file is None:
        pytest.skip("not a single-kind document")
    assert not fast_check(file)(doc)


@pytest.mark.parametrize("path", sorted(p for p in VALID.rglob("*.yaml")), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fixture_documents_valid_both_ways(path):
    doc = loaded(path.read_text())
    assert agree(doc, schema_file(doc)) and fast_check(schema_file(doc))(doc)


def test_mutated_documents_agree():
    rng = random.Random(5)
    checked = disagreements = 0
    for n in range(400):
        tree = rng.choice(sorted(BASE))
        name = rng.choice(sorted(BASE[tree]))
        doc = loaded(BASE[tree][name])
        for _ in range(rng.choice([1, 2])):
            doc, _ = mutate_data(rng, doc)
        file = schema_file(doc)
        if file is None:
            continue
        checked += 1
        if not agree(doc, file):
            disagreements += 1
            pytest.fail(f"fast and jsonschema disagree on {tree}/{name} mutation {n}: {doc!r}"[:3000])
    assert checked > 250 and disagreements == 0


def test_unknown_keyword_is_refused_not_ignored():
    with pytest.raises(ValueError, match="maxLength"):
        compile_schema({"type": "string", "maxLength": 3})


def test_jsonschema_equality_rules():
    check = compile_schema({"enum": [1, "a"], "type": ["integer", "string", "boolean"]})
    assert check(1) and check("a") and not check(True) and not check("1")
    assert compile_schema({"uniqueItems": True})([1, True])
    assert not compile_schema({"uniqueItems": True})([1, 1])
