"""The spec's type strings, parsed once into a small value type."""
from __future__ import annotations

import re
from dataclasses import dataclass

_DECIMAL = re.compile(r"^decimal\((\d{1,3}), ?(\d{1,3})\)$")
SCALARS = ("string", "int", "bool", "date", "timestamp", "variant")


@dataclass(frozen=True)
class SpecType:
    name: str              # string|int|bool|date|timestamp|variant|decimal
    precision: int = 0
    scale: int = 0

    def __str__(self) -> str:
        return f"decimal({self.precision},{self.scale})" if self.name == "decimal" else self.name

    @property
    def numeric(self) -> bool:
        return self.name in ("int", "decimal")

    @property
    def temporal(self) -> bool:
        return self.name in ("date", "timestamp")


STRING = SpecType("string")
INT = SpecType("int")
BOOL = SpecType("bool")
DATE = SpecType("date")
TIMESTAMP = SpecType("timestamp")
VARIANT = SpecType("variant")


MAX_PRECISION = 38


def parse_type(text: str) -> SpecType | None:
    """None when `text` is not a usable type: not a type string, or a decimal(p,s) with p = 0,
    s > p, or p above the precision cap."""
    return None if type_problem(text) else _parse(text)


def type_problem(text) -> tuple[str, str] | None:
    """Why `text` is not a usable type, as (kind, message): kind "grammar" (not a type string
    of the v1 grammar, p = 0 or s > p) or "precision" (a well-formed decimal above the cap)."""
    if not isinstance(text, str):
        return "grammar", f"a type is a string, got {text!r}"
    if text in SCALARS:
        return None
    m = _DECIMAL.match(text)
    if not m:
        return "grammar", f"`{text}` is not a type: write string, int, bool, date, timestamp, variant or decimal(p,s)"
    p, s = int(m.group(1)), int(m.group(2))
    if p < 1:
        return "grammar", f"`{text}` has precision 0; a decimal holds at least one digit"
    if s > p:
        return "grammar", f"`{text}` has scale {s} above its precision {p}"
    if p > MAX_PRECISION:
        return "precision", f"`{text}` asks for {p} digits, above the cap of {MAX_PRECISION} that every engine supports"
    return None


def _parse(text: str) -> SpecType:
    if text in SCALARS:
        return SpecType(text)
    m = _DECIMAL.match(text)
    return SpecType("decimal", int(m.group(1)), int(m.group(2)))


def assignable(source: SpecType, target: SpecType) -> bool:
    """Identity; anything to variant; decimal to decimal when neither scale nor integer digits shrink."""
    if source == target or target.name == "variant":
        return True
    if source.name == "decimal" and target.name == "decimal":
        return target.scale >= source.scale and (target.precision - target.scale) >= (source.precision - source.scale)
    return False
