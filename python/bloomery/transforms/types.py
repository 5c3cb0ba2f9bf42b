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


def parse_type(text: str) -> SpecType | None:
    """None when `text` is not a type string; also None for decimal with s > p or p = 0."""
    if text in SCALARS:
        return SpecType(text)
    m = _DECIMAL.match(text or "")
    if not m:
        return None
    p, s = int(m.group(1)), int(m.group(2))
    if p < 1 or s > p or p > 38:
        return None
    return SpecType("decimal", p, s)


def assignable(source: SpecType, target: SpecType) -> bool:
    """Identity; anything to variant; decimal to decimal when neither scale nor integer digits shrink."""
    if source == target or target.name == "variant":
        return True
    if source.name == "decimal" and target.name == "decimal":
        return target.scale >= source.scale and (target.precision - target.scale) >= (source.precision - source.scale)
    return False
