"""The rounding opt-in of a numeric cast. A cast to int or decimal(p,s) that would lose digits (a
fraction into an int, more fractional digits than the scale) is a coercion failure; a `to_int`,
`to_decimal` or `parse_decimal` step that says `rounding: half_away_from_zero` rounds instead.
The macros do both (macros/cast/numeric_cast.sql); this is how the spec says it."""
from __future__ import annotations

from decimal import Decimal
from typing import Any

from .steps import ChainError

# A numeric cast that would lose digits (a fraction into an int, more fractional digits than the
# scale) is a coercion failure unless its step opts into rounding with `rounding:`. One mode, the
# one every engine's decimal rounding already is: a half goes away from zero (2.25 -> 2.3,
# -2.25 -> -2.3). `half_even` is not offered: no engine here rounds that way natively.
ROUNDING_KEY = "rounding"
ROUNDINGS = ("half_away_from_zero",)
ROUNDED = frozenset({"to_int", "to_decimal", "parse_decimal"})


def fraction_digits(d: Decimal) -> int:
    """How many digits after the point `d` needs (trailing zeros do not count: 12.70 needs one)."""
    _, digits, exponent = d.as_tuple()
    zeros = len(digits) - len("".join(map(str, digits)).rstrip("0"))
    return max(0, -exponent - zeros) if any(digits) else 0


def split_rounding(step: Any) -> tuple[Any, str | None]:
    """A step with the rounding opt-in (`{to_decimal: [8, 1], rounding: half_away_from_zero}`, or
    `rounding:` beside `name:`) -> (the step without it, the mode); any other step -> (step, None)."""
    if not (isinstance(step, dict) and ROUNDING_KEY in step and len(step) > 1):
        return step, None
    rest = {k: v for k, v in step.items() if k != ROUNDING_KEY}
    mode = step[ROUNDING_KEY]
    if mode not in ROUNDINGS:
        raise ChainError(None, f"`{ROUNDING_KEY}: {mode}` is no rounding mode; the one mode is "
                         f"{ROUNDINGS[0]} (a half goes away from zero, as every engine rounds a decimal)",
                         f"write `{ROUNDING_KEY}: {ROUNDINGS[0]}`, or leave it out to make a value that would "
                         "lose digits a coercion failure")
    return rest, mode
