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
