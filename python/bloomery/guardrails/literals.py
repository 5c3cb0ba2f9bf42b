"""Literal and bound checks: which spec values a range rule or an enum rule can compare against.

Decides whether a bound is a finite plain number or an ISO date/timestamp, whether min > max,
the literal form the macros render a bound in, and the values an enum_map chain can admit.
"""
from __future__ import annotations

import re
from datetime import date, datetime
from decimal import Decimal, InvalidOperation

from ..transforms.chain import Lowered
from ..transforms.types import SpecType

_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_ISO_TS = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?$")
_DECIMAL_TEXT = re.compile(r"^-?\d+(\.\d+)?$")


def _iso(text: str, shape: re.Pattern, parse) -> bool:
    """`text` has the shape and is on the calendar (the shape alone lets `2026-02-30` through)."""
    if not shape.match(text):
        return False
    try:
        parse(text)
    except ValueError:
        return False
    return True


def _iso_date(text: str) -> bool:
    return _iso(text, _ISO_DATE, date.fromisoformat)


def _iso_timestamp(text: str) -> bool:
    return _iso(text, _ISO_TS, datetime.fromisoformat)


def _bound_ok(value) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    if isinstance(value, Decimal):
        return value.is_finite() and "e" not in str(value).lower()
    if isinstance(value, str):
        return bool(_DECIMAL_TEXT.match(value) or _iso_date(value) or _iso_timestamp(value))
    return False


def _bounds_reversed(low, high) -> bool:
    """min > max, for bounds of one kind (numbers, or ISO texts compared as instants)."""
    def key(v):
        if isinstance(v, (int, Decimal)) or (isinstance(v, str) and _DECIMAL_TEXT.match(v)):
            return "number", Decimal(str(v))
        if _iso_date(v):
            return "time", datetime.fromisoformat(v + "T00:00:00")
        return "time", datetime.fromisoformat(v)
    (k1, a), (k2, b) = key(low), key(high)
    return k1 == k2 and a > b


def _bound_literal(value, t: SpecType):
    """The bound as the macros render it: {"kind": number|date|timestamp, "value": text}; None if it cannot compare."""
    if isinstance(value, bool) or value is None:
        return None
    text = str(value)
    if t.numeric and (isinstance(value, (int, Decimal)) or _DECIMAL_TEXT.match(text)):
        try:
            if not Decimal(text).is_finite():
                return None
        except InvalidOperation:
            return None
        if "e" in text.lower():
            return None
        return {"kind": "number", "value": text}
    if t.name == "date" and isinstance(value, str) and _iso_date(text):
        return {"kind": "date", "value": text}
    if t.name == "timestamp" and isinstance(value, str) and (_iso_timestamp(text) or _iso_date(text)):
        return {"kind": "timestamp", "value": text.replace("T", " ")}
    return None


def _enum_admissible(low: Lowered) -> list[str] | None:
    names = low.names
    if "enum_map" not in names:
        return None
    last = max(i for i, n in enumerate(names) if n == "enum_map")
    if any(n not in ("enum_map", "to_string") for n in names[last + 1:]):
        return None
    # Values the last map can produce from an admissible input: its targets, each passed
    # through the map itself (a target that is also a spelling maps on, as in the CASE).
    last_map = [s for s in low.steps if s["op"] == "enum_map"][-1]
    first: dict[str, str] = {}
    for spelling, target in last_map["pairs"]:
        first.setdefault(spelling, target)
    admissible = {first.get(t, t) for t in first.values()}
    return sorted(admissible or [])
