"""The literals a chain's steps carry (`coalesce`, `nullif`, arithmetic), checked at compile time:
a literal that does not convert to the value's type is a spec error, never a run-time one."""
from __future__ import annotations

import re
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from .rounding import fraction_digits
from .steps import ChainError
from .types import SpecType


def literal_digits(text: str) -> tuple[int, int]:
    d = Decimal(text)
    sign, digits, exponent = d.as_tuple()
    scale = max(0, -exponent)
    precision = max(len(digits), scale + 1) if scale else len(digits) + max(0, exponent)
    return max(precision, 1), scale


def literal_for(t: SpecType, value: Any, name: str):
    """Check at compile time that a literal converts to `t`: a bad literal is a spec error, not a run-time one."""
    if t.name == "string":
        return str(value)
    text = str(value)
    try:
        if t.name == "int":
            int(text)
        elif t.name == "decimal":
            d = Decimal(text)
            if not d.is_finite():
                raise InvalidOperation
            p, s = literal_digits(text)
            if p - s > t.precision - t.scale:
                raise ChainError(None, f"`{name}` literal {text} does not fit {t}")
            if fraction_digits(d) > t.scale:
                raise ChainError(None, f"`{name}` literal {text} has more fractional digits than {t} keeps",
                                 f"write it with at most {t.scale} digits after the point")
        elif t.name == "bool":
            if text.lower() not in ("true", "false", "1", "0"):
                raise InvalidOperation
        elif t.name == "date":
            if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
                raise InvalidOperation
            date.fromisoformat(text)
        elif t.name == "timestamp":
            if not re.fullmatch(r"\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?)?", text):
                raise InvalidOperation
            datetime.fromisoformat(text)
    except (ValueError, InvalidOperation):
        raise ChainError(None, f"`{name}` literal {value!r} is not a valid {t}, the type of the value here",
                         f"write a {t} literal, e.g. {_LITERAL_EXAMPLES.get(t.name, '0')!r}") from None
    return text


_LITERAL_EXAMPLES = {"int": "0", "decimal": "0.00", "bool": "true", "date": "2015-01-01",
                     "timestamp": "2015-01-01T00:00:00"}
