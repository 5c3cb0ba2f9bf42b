"""Locale-formatted decimals through `parse_decimal`: one list of spellings and what each becomes,
asserted by the compiler's reference (tests/unit/transforms/test_parse_decimal.py) and on DuckDB, PostgreSQL
and Spark (tests/integration/test_parse_decimal.py). `None` is a coercion failure (NULL in a
quality entity; outside one the run stops, naming the value). Every field is `decimal(12,2)`."""
from __future__ import annotations

TYPE = "decimal(12,2)"
NBSP, NNBSP = "\u00a0", "\u202f"

# name -> the step's options, as a spec writes them
FORMATS = {
    "eu": {"decimal": ",", "group": ".", "currency": ["€", "EUR"]},
    "us": {"decimal": ".", "group": ",", "currency": "$"},
    "fr": {"decimal": ",", "group": "space", "currency": "€"},   # a blank: any of the three
    "ch": {"decimal": ".", "group": "'", "currency": ["CHF", "Fr."]},
    "plain": {"decimal": ","},
    "eu_round": {"decimal": ",", "group": ".", "currency": ["€", "EUR"]},   # with `rounding:` (ROUNDING)
}
# formats whose step opts into rounding a value with more fractional digits than the scale
ROUNDING = {"eu_round": "half_away_from_zero"}


def spec_step(fmt: str) -> dict:
    """The `parse_decimal` step of a format, as a spec writes it."""
    step = {"parse_decimal": FORMATS[fmt]}
    if fmt in ROUNDING:
        step["rounding"] = ROUNDING[fmt]
    return step


# (format, text, value as text or None)
CASES = [
    ("eu", "12,50 €", "12.50"),
    ("eu", "1.234,50", "1234.50"),
    ("eu", "1.234.567,8", "1234567.80"),
    ("eu", "1234,5", "1234.50"),
    ("eu", "1234", "1234.00"),
    ("eu", "1.234", "1234.00"),
    ("eu", "€12,50", "12.50"),
    ("eu", "€ 12,50", "12.50"),
    ("eu", "EUR 1.234", "1234.00"),
    ("eu", "12 EUR", "12.00"),
    ("eu", "-12,50 €", "-12.50"),
    ("eu", "€ -12,50", "-12.50"),
    ("eu", "-€12,50", "-12.50"),
    ("eu", "+3", "3.00"),
    ("eu", "  7,25  ", "7.25"),
    ("eu", f"12,50{NBSP}€", "12.50"),
    ("eu", "0,005", None),                   # more digits than the scale: rounded only on request (eu_round)
    ("eu", "-0,005", None),
    ("eu", "12,500", "12.50"),               # trailing zeros lose nothing
    ("eu", "12345678,99", "12345678.99"),
    ("eu", "12.50", None),                   # a dot is the group separator here: groups are 3 digits
    ("eu", "1.23,4", None),
    ("eu", "1,234.50", None),                # the other locale
    ("eu", "1.234.56", None),
    ("eu", "12,50 $", None),                 # a currency the format does not name
    ("eu", "12€50", None),
    ("eu", "€12,50€", None),
    ("eu", "--12", None),
    ("eu", "12,50-", None),
    ("eu", "- 12,50", None),
    ("eu", ",50", None),
    ("eu", "12,", None),
    ("eu", "1e3", None),
    ("eu", "12 345,00", None),               # a space is no group separator in this format
    ("eu", "", None),
    ("eu", "   ", None),
    ("eu", "€", None),
    ("eu", "abc", None),
    ("eu", "123456789012,00", None),         # 12 integer digits do not fit decimal(12,2)
    ("us", "$1,234.50", "1234.50"),
    ("us", "1,234", "1234.00"),
    ("us", "-$0.99", "-0.99"),
    ("us", "$ 1,234,567.891", None),
    ("us", "1.234,50", None),
    ("us", "1,23", None),
    ("fr", "1 234,50 €", "1234.50"),
    ("fr", f"1{NNBSP}234{NNBSP}567,5{NBSP}€", "1234567.50"),   # any blank separates groups
    ("fr", "1234,50", "1234.50"),
    ("fr", "1 23,50", None),
    ("fr", "1.234,50", None),
    ("ch", "CHF 1'234.50", "1234.50"),
    ("ch", "Fr. 12.50", "12.50"),
    ("ch", "1'234'567.05 CHF", "1234567.05"),
    ("ch", "Fr.12", "12.00"),
    ("ch", "12.50 EUR", None),
    ("ch", "1'23.50", None),
    ("plain", "1234,5", "1234.50"),
    ("plain", "-0,1", "-0.10"),
    ("plain", "1.234,5", None),
    ("plain", "12,50 €", None),
    ("plain", "12.5", None),
    ("eu_round", "0,005", "0.01"),           # a half goes away from zero
    ("eu_round", "-0,005", "-0.01"),
    ("eu_round", "1.234,565 €", "1234.57"),
    ("eu_round", "2,344", "2.34"),
    ("eu_round", "12,50", "12.50"),
    ("eu_round", "12.50", None),             # off the format still fails
]


# -- the spec the builds compile -------------------------------------------------------------------
# `price` is a quality entity (a value off the format is NULL there, and a `coercible` rule disposes
# of it), `tariff` is outside the quality system (produce or raise). The engines build it
# (test_parse_decimal.py) and the warehouses without a server render it
# (tests/dialects/test_parse_decimal_dialects.py); each test writes the fields' formats, which are
# what it asserts on.

MODEL = """\
spec_version: 1
entities:
  price:
    grain: one row per price
    key: [price_id]
    fields:
      price_id: {type: string}
      amount: {type: "decimal(12,2)"}
__MORE_PRICE_FIELDS__    quarantine: {retention: 52w}
  tariff:
    grain: one row per tariff
    key: [tariff_id]
    fields:
      tariff_id: {type: string}
      rate: {type: "decimal(10,4)"}
"""


def model(*price_fields: str) -> str:
    """The entity model, `price` carrying each of `price_fields` (a decimal(12,2)) after `amount`."""
    more = "".join(f'      {name}: {{type: "{TYPE}"}}\n' for name in price_fields)
    return MODEL.replace("__MORE_PRICE_FIELDS__", more)


def mapping(source: str, target: str, fields: str) -> str:
    """The mapping of bronze `source` onto `target`, keyed by `<target>_id` from `$.id`; `fields` is
    the text under `fields:` (and what follows it)."""
    return (f"mapping_version: 1\nsource: {source}\ntarget: {target}\n"
            f'key: {{{target}_id: {{from: "$.id"}}}}\nfields:\n{fields}')
