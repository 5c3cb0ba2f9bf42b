"""No lossy cast without a trace, in the lowering: the numeric casts carry the rounding opt-in
(`rounding: half_away_from_zero`) into the IR as `round`, every v1 spelling lowers as before (no
`round`: a value that would lose digits is a coercion failure), and `coercible` is judged at the
cast on a chain with a nulling step too (an implicit rule, and an explicit one accepted)."""
from __future__ import annotations

import pytest

from bloomery import errors as E
from bloomery.resolve import Disposition
from bloomery.transforms.chain import ChainError, lower_chain
from bloomery.transforms.decimal_text import parse_decimal_value
from bloomery.transforms.types import parse_type
from spec_trees import Tree

MODE = "half_away_from_zero"


def _steps(chain, declared):
    return lower_chain(chain, parse_type(declared)).steps


@pytest.mark.parametrize("chain,declared", [
    ([{"to_decimal": [8, 1], "rounding": MODE}], "decimal(8,1)"),
    ([{"name": "to_decimal", "args": [8, 1], "rounding": MODE}], "decimal(8,1)"),
    ([{"to_int": None, "rounding": MODE}], "int"),
    ([{"to_int": [], "rounding": MODE}], "int"),
    ([{"name": "to_int", "rounding": MODE}], "int"),
    ([{"to_decimal": [8, 3]}, {"name": "to_int", "rounding": MODE}], "int"),
])
def test_the_opt_in_reaches_the_cast_it_is_written_on(chain, declared):
    *_, last = _steps(chain, declared)
    assert last["op"] == "cast" and last["round"] == MODE
    assert all("round" not in s for s in _steps(chain, declared)[:-1])


def test_v1_spellings_lower_unchanged_and_strict():
    assert _steps([{"to_decimal": [8, 1]}], "decimal(8,1)") == [
        {"op": "cast", "type": {"name": "decimal", "precision": 8, "scale": 1}}]
    assert _steps(["to_int"], "int") == [{"op": "cast", "type": {"name": "int"}, "via_int": False}]
    # the implicit final cast of an unchanged text is strict too (no step to opt in on)
    assert _steps([], "int") == [{"op": "cast", "type": {"name": "int"}, "final": True}]
    # `round` (the transform) keeps its one-key spelling
    assert [s["op"] for s in _steps([{"to_decimal": [8, 3]}, {"round": 1}], "decimal(8,1)")][:2] == ["cast", "round"]


def test_parse_decimal_carries_the_opt_in_and_its_excess_pattern():
    (strict,) = _steps([{"parse_decimal": {"decimal": ","}}], "decimal(12,2)")
    (rounded,) = _steps([{"parse_decimal": {"decimal": ","}, "rounding": MODE}], "decimal(12,2)")
    assert "round" not in strict and rounded["round"] == MODE
    assert strict["excess"] == rounded["excess"] == ",[0-9]{2}[0-9]*[1-9]"
    assert parse_decimal_value("2,345", strict) is None and str(parse_decimal_value("2,345", rounded)) == "2.35"
    assert str(parse_decimal_value("2,3400", strict)) == "2.34"      # trailing zeros lose nothing
    (whole,) = _steps([{"parse_decimal": {"decimal": "."}}], "decimal(5,0)")
    assert whole["excess"] == "[.][0-9]*[1-9]"


@pytest.mark.parametrize("chain,declared,message,hint", [
    ([{"to_decimal": [8, 1], "rounding": "half_even"}], "decimal(8,1)", "no rounding mode", MODE),
    ([{"to_decimal": [8, 1], "rounding": True}], "decimal(8,1)", "no rounding mode", MODE),
    ([{"trim": None, "rounding": MODE}], "string", "`trim` is no cast to a number", "drop it"),
    ([{"to_decimal": [8, 3]}, {"round": 1, "rounding": MODE}], "decimal(8,1)", "`round` is no cast", "drop it"),
    ([{"coalesce": "2.962"}], "string", None, None),
    ([{"to_decimal": [8, 1]}, {"coalesce": "2.962"}], "decimal(8,1)", "more fractional digits than decimal(8,1)",
     "at most 1 digits"),
    ([{"to_decimal": [8, 1]}, {"nullif": "2.95"}], "decimal(8,1)", "more fractional digits", None),
])
def test_a_misplaced_opt_in_or_a_literal_that_would_round_is_refused(chain, declared, message, hint):
    if message is None:
        lower_chain(chain, parse_type(declared))      # a string literal on a string: nothing to round
        return
    with pytest.raises(ChainError) as raised:
        lower_chain(chain, parse_type(declared))
    assert message in raised.value.message and raised.value.index == len(chain) - 1
    assert hint is None or hint in raised.value.hint
    # a literal whose extra digits are zeros is exact
    lower_chain([{"to_decimal": [8, 1]}, {"coalesce": "2.90"}], parse_type("decimal(8,1)"))


# -- coercible on a chain with a nulling step --------------------------------------------------------
CUSTOMERS = "mapping_customers.yaml"
TIER = '    transform: [trim, {nullif: "n/a"}, to_int]\n    quality:\n'


def test_a_nulling_chain_gets_the_implicit_coercible_and_accepts_an_explicit_one(tmp_path):
    tree = Tree.copy("full", tmp_path)
    tree.edit(CUSTOMERS, TIER, TIER + "      - {rule: coercible, on_fail: flag}\n")
    tier = tree.check().entities["customer"].rule_named("tier_coercible")
    assert not tier.implicit and tier.disposition is Disposition.FLAG


def test_a_wrong_rounding_mode_is_a_located_type_error(tmp_path):
    tree = Tree.copy("full", tmp_path)
    tree.edit(CUSTOMERS, TIER, TIER.replace("to_int]", "{name: to_int, rounding: half_even}]"))
    errors = [e for e in tree.errors() if "rounding" in str(e)]
    assert errors, tree.errors()
    error = errors[0]
    assert isinstance(error, (E.TypeCheckError, E.SpecParseError))
    assert error.location.line == tree.line_of(CUSTOMERS, "half_even")
