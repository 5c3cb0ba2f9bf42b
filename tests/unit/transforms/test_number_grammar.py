"""The one grammar of numeric text a cast to int or decimal accepts on every engine
(macros/cast/number_pattern.sql, docs/quality-rules.md "Numeric casts lose no digit unasked"):
the pattern the macro renders, read with Python's `re` (the same meaning as RE2, Java and POSIX
ARE for its plain groups, `[0-9]` and `\\t\\n\\r`), against the spellings the docs name. What the
engines do with it is measured in tests/integration/test_dialect_matrix.py."""
from __future__ import annotations

import re
from pathlib import Path

import jinja2
import pytest

MACROS = Path(__file__).resolve().parents[3] / "macros"


def _pattern(exponent: str = "optional") -> str:
    returned = []
    env = jinja2.Environment()
    env.globals["return"] = lambda value: returned.append(value) or ""
    env.from_string((MACROS / "cast" / "number_pattern.sql").read_text()).module.number_pattern(exponent)
    (value,) = returned
    return value


NUMBERS = ["12", " 12 ", "\t+12\r\n", "-0", "12.70", "5.", ".5", "+.5e1", "1.25e-1", "-1E+2", "1E+0002",
           "1e-400", "1e999", "1e0000999", "0." + "0" * 999 + "1", "9" * 400]
NOT_NUMBERS = ["", "   ", ".", "-", "+-1", "1e", "1e+", ".e1", "e1", "1.2.3", "1e1.5", "1e1000", "0x1F", "0X1f",
               "0o17", "0b101", "1_000", "1,000", "NaN", "nan", "Infinity", "-inf", "\v12", "\f12", "12\u00a0",
               "１２", "१२३", "12abc", "1 2", "--1", "1e-4000"]


@pytest.mark.parametrize("text", NUMBERS)
def test_a_number_of_the_grammar_matches(text):
    assert re.search(_pattern(), text)


@pytest.mark.parametrize("text", NOT_NUMBERS)
def test_anything_else_is_no_number(text):
    assert not re.search(_pattern(), text)


def test_the_exponent_spelling_pattern_requires_the_exponent():
    required = _pattern("required")
    assert re.search(required, " 1.5e3 ") and not re.search(required, "1.5") and not re.search(required, "0x1F")


def test_the_pattern_is_anchored_and_ascii():
    # a substring search on every engine: both anchors, digits as [0-9] (PostgreSQL's \\d and
    # classes follow the locale), blanks spelt out (its \\s takes \\v and the locale's spaces)
    p = _pattern()
    assert p.startswith("^") and p.endswith("$")
    assert "\\d" not in p and "\\s" not in p and "[[:" not in p


# -- every pattern numeric_cast matches is anchored at both ends ---------------------------------
# Snowflake's REGEXP_LIKE matches the whole string where the other engines search: a pattern that
# is not anchored at both ends means two things (an unanchored loss test never fires there).

def _numeric_cast_patterns(type_, safe=True, round_=None):
    """Render default__numeric_cast of a text with plain Jinja; the engine forms are stubs that
    record the patterns handed to regex_match."""
    patterns, modules = [], {}
    env = jinja2.Environment()

    class Returned(Exception):
        pass

    def returning(macro):
        """dbt's `return()`: the macro's value is what it returns, else what it renders."""
        def call(*args):
            try:
                return macro(*args)
            except Returned as r:
                return r.args[0]
        return call

    def give_back(value):
        raise Returned(value)

    class Bloomery:
        def __getattr__(self, name):
            if name in modules:
                return returning(getattr(modules[name], name))
            stubs = {"regex_match": lambda e, p: patterns.append(p) or f"match({e})",
                     "regex_extract": lambda e, p, g: f"extract({e})",
                     "safe_cast": lambda e, t: f"try_cast({e})", "hard_cast": lambda e, t: f"cast({e})",
                     "lossy_cast_error": lambda e, t: "lossy", "not_a_number_error": lambda e, t: "nan",
                     "type_name": lambda t: t["name"]}
            return stubs[name]

    def dispatch(name, package):
        module = modules[name]
        return returning(getattr(module, "default__" + name, getattr(module, name)))

    env.globals.update({"return": give_back, "bloomery": Bloomery(),
                        "adapter": type("A", (), {"dispatch": staticmethod(dispatch)})})
    for name in ("numeric_cast", "number_pattern", "plain_notation", "text_loses_digits"):
        modules[name] = env.from_string((MACROS / "cast" / f"{name}.sql").read_text()).module
    step = {"op": "cast", "type": type_, **({"round": round_} if round_ else {})}
    returning(modules["numeric_cast"].default__numeric_cast)("x", step, safe)
    return patterns


@pytest.mark.parametrize("type_", [{"name": "int"}, {"name": "decimal", "precision": 8, "scale": 1},
                                   {"name": "decimal", "precision": 38, "scale": 38}])
@pytest.mark.parametrize("safe,round_", [(True, None), (False, None), (True, "half_away_from_zero")])
def test_every_pattern_is_anchored_and_means_the_same_matched_whole_or_searched(type_, safe, round_):
    patterns = _numeric_cast_patterns(type_, safe, round_)
    assert patterns and all(p.startswith("^") and p.endswith("$") for p in patterns), patterns
    for p in patterns:
        for text in NUMBERS + NOT_NUMBERS + ["12.75", "-0.05", "12.70", "0.00125", "-1200", "1.5e-3"]:
            assert bool(re.search(p, text)) == bool(re.fullmatch(p, text)), (p, text)


@pytest.mark.parametrize("text,scale,loses", [
    ("12.70", 1, False), ("12.75", 1, True), (" -0.05 ", 1, True), ("12", 0, False), ("12.", 0, False),
    ("12.0", 0, False), ("12.5", 0, True), ("0." + "0" * 999 + "1", 0, True), ("5." + "0" * 1000, 0, False),
    ("0." + "9" * 38, 38, False), ("0." + "1" * 39, 38, True)])
def test_the_loss_test_reads_the_plain_spelling_exactly(text, scale, loses):
    type_ = {"name": "decimal", "precision": 38, "scale": scale} if scale else {"name": "int"}
    *_, loss = _numeric_cast_patterns(type_)
    assert bool(re.fullmatch(loss, text)) == loses
