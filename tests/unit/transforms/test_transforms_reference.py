"""The transforms have one source of truth, the compiler's registry (transforms/chain.py): the
reference in docs/spec-keys.md is generated from it, the schema's name lists follow it, and an
unknown name is refused, located, with the list of known ones and the closest match."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from bloomery import errors as E
from bloomery.transforms.chain import REGISTRY, lower_chain, normalize_step, _check_args
from bloomery.transforms.types import parse_type
from spec_trees import Tree

ROOT = Path(__file__).resolve().parents[3]
SC = "mapping_customers.yaml"
CUSTOMERS = "mapping[crm__customers->customer]"


def _section(text: str, heading: str) -> str:
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end > 0 else None]


def test_spec_keys_lists_every_transform_with_arguments_types_and_an_example():
    text = (ROOT / "docs" / "spec-keys.md").read_text(encoding="utf-8")
    section = _section(text, "Transforms")
    rows = {line.split("|")[1].strip(): line for line in section.splitlines() if line.startswith("| `")}
    assert set(rows) == {f"`{name}`" for name in REGISTRY}
    for name, sig in REGISTRY.items():
        row = rows[f"`{name}`"]
        cells = [c.strip() for c in row.split("|")[1:-1]]
        assert len(cells) == 5 and all(cells[1:]), row          # arguments, input -> output, what, example
        assert "→" in cells[2], row
        assert name in cells[4], row


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_documented_example_is_a_well_formed_step(name):
    sig = REGISTRY[name]
    step = yaml.safe_load(sig.example)
    got, args = normalize_step(step)
    assert got == name
    _check_args(name, sig, args)


def test_the_mapping_reference_points_at_the_transforms():
    text = (ROOT / "docs" / "spec-keys.md").read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith("| `fields.<name>.transform[].name`"))
    assert "Transforms" in row


def test_the_schema_names_the_registry_s_transforms():
    schema = json.loads((ROOT / "schemas" / "mapping.schema.json").read_text(encoding="utf-8"))
    defs = schema["$defs"]
    assert defs["transform_name"]["examples"] == list(REGISTRY)
    assert defs["transform_step_shorthand"]["propertyNames"]["examples"] == list(REGISTRY)
    assert "parse_decimal" in REGISTRY


def test_unknown_transform_lists_the_known_ones_and_the_closest():
    from bloomery.transforms.chain import ChainError
    with pytest.raises(ChainError) as raised:
        lower_chain(["trim", "lowr"], parse_type("string"))
    exc = raised.value
    assert exc.unknown and exc.index == 1
    assert exc.hint == "did you mean `lower`?"
    for name in REGISTRY:
        assert f"`{name}`" in exc.message, exc.message


def test_unknown_transform_without_a_close_match_still_says_what_to_write():
    from bloomery.transforms.chain import ChainError
    with pytest.raises(ChainError) as raised:
        lower_chain(["qqqqqq"], parse_type("string"))
    assert raised.value.hint and "docs/spec-keys.md" in raised.value.hint
    assert "`trim`" in raised.value.message


@pytest.mark.parametrize("written,closest", [
    ("transform: [trim, lowr]", "lower"),
    ('transform: [trim, {parse_decimel: {decimal: ","}}]', "parse_decimal"),   # options: the schema lets it through
    ("transform: [trim, {name: strip_prefx, args: [x]}]", "strip_prefix"),
    ("transform: [trim, {regexp_extract: ['^(a)', 1]}]", "regex_extract"),
])
def test_unknown_transform_in_a_spec_is_located(tmp_path, written, closest):
    tree = Tree.copy("shop", tmp_path)
    tree.edit(SC, "transform: [trim, lower]", written)
    (error,) = tree.errors()
    assert isinstance(error, E.UnknownTransformError), str(error)
    loc = error.location
    assert (loc.file, loc.line, loc.path) == (tree.display(SC), tree.line_of(SC, written),
                                              f"{CUSTOMERS}.fields.email.transform[1]"), str(error)
    assert error.hint == f"did you mean `{closest}`?"
    assert "`parse_decimal`" in error.message and "`trim`" in error.message
