"""`parse_decimal`: a locale-formatted decimal (decimal and group separators, currency symbols) read
into the field's decimal type. A value that does not match the format is a coercion failure, like a
failed cast; a format that could read one text two ways is refused at compile time, located.

The spellings and what they become are tests/integration/decimal_spellings.py, asserted here
against the compiler's reference of the SQL (`parse_decimal_value`: the step's anchored pattern,
then its removals) and on the engines by tests/integration/test_parse_decimal.py."""
from __future__ import annotations

import sys
from decimal import Decimal
from pathlib import Path

import pytest

from bloomery import errors as E
from bloomery.transforms.chain import ChainError, lower_chain
from bloomery.transforms.decimal_text import parse_decimal_value
from bloomery.transforms.types import SpecType, parse_type
from spec_trees import Tree

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "integration"))
from decimal_spellings import CASES, FORMATS, TYPE, spec_step  # noqa: E402

SI = "mapping_order_items.yaml"
ITEMS = "mapping[shop__order_items->order_item]"
PRICE = "transform: [{to_decimal: [12, 4]}]\n    quality"


def _step(options, declared=TYPE):
    low = lower_chain([{"parse_decimal": options}], parse_type(declared))
    (step,) = low.steps
    return low, step


@pytest.mark.parametrize("fmt,text,expected", CASES, ids=[f"{f}:{t!r}" for f, t, _ in CASES])
def test_reference_reads_every_spelling(fmt, text, expected):
    (step,) = lower_chain([spec_step(fmt)], parse_type(TYPE)).steps
    got = parse_decimal_value(text, step)
    assert got == (None if expected is None else Decimal(expected))


def test_lowers_to_one_coercion_point_typed_as_the_field():
    low, step = _step(FORMATS["eu"], "decimal(12,4)")
    assert step["op"] == "parse_decimal"
    assert step["type"] == {"name": "decimal", "precision": 12, "scale": 4}
    assert low.type == SpecType("decimal", 12, 4)
    assert low.casts == 1 and not low.nullifying      # judged by the implicit `coercible`
    assert step["pattern"].startswith("^") and step["pattern"].endswith("$")
    # currencies are removed longest first, so a symbol inside another never splits it
    assert step["remove"][:2] == ["EUR", "€"]


def test_the_three_spellings_of_a_step_agree():
    options = {"decimal": ",", "group": "."}
    a = lower_chain([{"parse_decimal": options}], parse_type(TYPE)).steps
    b = lower_chain([{"name": "parse_decimal", "args": options}], parse_type(TYPE)).steps
    c = lower_chain([{"name": "parse_decimal", "args": [options]}], parse_type(TYPE)).steps
    assert a == b == c


def test_later_steps_take_the_parsed_decimal():
    low = lower_chain([{"parse_decimal": {"decimal": ","}}, "abs"], parse_type("decimal(10,2)"))
    assert [s["op"] for s in low.steps] == ["parse_decimal", "abs"]


REFUSED = {
    "same separators": ({"decimal": ".", "group": "."}, "ambiguous", "must differ"),
    "no decimal separator": ({"group": "."}, "`decimal`", "decimal:"),
    "decimal separator of two characters": ({"decimal": ",,"}, "one character", None),
    "digit as separator": ({"decimal": ",", "group": "0"}, "digit", None),
    "empty group (a quoted blank arrives stripped)": ({"decimal": ",", "group": ""}, "empty", "group: space"),
    "tab as group": ({"decimal": ",", "group": "\t"}, "blank", "group: space"),
    "sign as decimal separator": ({"decimal": "-"}, "sign", None),
    "blank as decimal separator": ({"decimal": " "}, "blank", None),
    "unknown option": ({"decimal": ",", "grup": "."}, "`grup`", "did you mean `group`?"),
    "currency with a digit": ({"decimal": ",", "currency": "E1"}, "digit", None),
    "currency with a sign": ({"decimal": ",", "currency": "-EUR"}, "sign", None),
    "currency with a blank": ({"decimal": ",", "currency": "US $"}, "blank", None),
    "currency made of separators": ({"decimal": ",", "group": ".", "currency": ".,"}, "separators", None),
    "empty currency": ({"decimal": ",", "currency": ""}, "empty", None),
    "empty currency list": ({"decimal": ",", "currency": []}, "at least one", None),
    "currency twice": ({"decimal": ",", "currency": ["€", "€"]}, "twice", None),
    "option of the wrong kind": ({"decimal": [","]}, "`decimal`", None),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_an_ambiguous_or_unreadable_format_is_refused(name):
    options, says, hint = REFUSED[name]
    with pytest.raises(ChainError) as raised:
        lower_chain([{"parse_decimal": options}], parse_type(TYPE))
    exc = raised.value
    assert exc.index == 0 and not exc.unknown and not exc.malformed
    assert says in exc.message, exc.message
    assert exc.hint, exc.message
    if hint:
        assert hint in exc.hint, exc.hint


def test_the_field_must_be_a_decimal():
    with pytest.raises(ChainError) as raised:
        lower_chain([{"parse_decimal": {"decimal": ","}}], parse_type("int"))
    assert "decimal" in raised.value.message and "declared int" in raised.value.message
    assert "decimal(p,s)" in raised.value.hint


def test_input_must_be_text():
    with pytest.raises(ChainError) as raised:
        lower_chain(["to_int", {"parse_decimal": {"decimal": ","}}], parse_type(TYPE))
    assert raised.value.index == 1 and "takes string" in raised.value.message


# -- through the compiler: located like every spec error ------------------------------------------

def test_a_blank_group_is_written_space_and_stands_for_every_blank(tmp_path):
    tree = Tree.copy("shop", tmp_path)
    tree.edit(SI, PRICE, 'transform: [{parse_decimal: {decimal: ",", group: space}}]\n    quality')
    item = tree.check().entities["order_item"]
    (column,) = [c for c in item.mappings[0].columns if c.name == "unit_price"]
    (step,) = column.steps
    for text in ("1 234,5", "1\u00a0234,5", "1\u202f234,5"):
        assert parse_decimal_value(text, step) == Decimal("1234.5")
    tree.edit(SI, "group: space", 'group: " "')
    (error,) = tree.errors()
    assert "empty" in error.message and "group: space" in error.hint, str(error)


def test_valid_in_a_spec_tree(tmp_path):
    tree = Tree.copy("shop", tmp_path)
    tree.edit(SI, PRICE, 'transform: [{parse_decimal: {decimal: ",", group: ".", currency: ["€", "EUR"]}}]\n    quality')
    project = tree.check()
    item = project.entities["order_item"]
    (column,) = [c for c in item.mappings[0].columns if c.name == "unit_price"]
    assert [s["op"] for s in column.steps] == ["parse_decimal"]
    assert item.rule_named("unit_price_coercible") is not None


@pytest.mark.parametrize("written,says", [
    ('{parse_decimal: {decimal: ".", group: "."}}', "ambiguous"),
    ('{parse_decimal: {decimal: ",", currency: "1€"}}', "digit"),
    ('{name: parse_decimal, args: {decimal: ",", group: ","}}', "ambiguous"),
])
def test_refusal_is_located(tmp_path, written, says):
    tree = Tree.copy("shop", tmp_path)
    tree.edit(SI, PRICE, f"transform: [{written}]\n    quality")
    (error,) = tree.errors()
    assert isinstance(error, E.TypeCheckError), str(error)
    loc = error.location
    assert (loc.file, loc.line, loc.path) == (tree.display(SI), tree.line_of(SI, "parse_decimal"),
                                              f"{ITEMS}.fields.unit_price.transform[0]"), str(error)
    assert says in error.message and error.hint, str(error)


def test_option_value_of_the_wrong_type_is_a_parse_error(tmp_path):
    tree = Tree.copy("shop", tmp_path)
    tree.edit(SI, PRICE, "transform: [{parse_decimal: {decimal: 0.5}}]\n    quality")
    (error,) = tree.errors()
    assert isinstance(error, E.SpecParseError), str(error)
    assert error.location.line == tree.line_of(SI, "parse_decimal")
