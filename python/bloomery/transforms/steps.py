"""What every transform's lowering shares: the refusal (ChainError), the IR of a type and of a
cast, and the input-type check with its hint."""
from __future__ import annotations

from ..errors import Refusal
from .types import SpecType


class ChainError(Refusal):
    """A chain refused. `unknown`: the name is not a transform (UnknownTransformError);
    `malformed`: the step is not spelled as a step at all (SpecParseError); else TypeCheckError."""

    def __init__(self, index: int | None, message: str, hint: str | None = None, unknown: bool = False,
                 malformed: bool = False):
        super().__init__(message)
        self.index, self.message, self.hint = index, message, hint
        self.unknown, self.malformed = unknown, malformed


def type_ir(t: SpecType) -> dict:
    return {"name": t.name, "precision": t.precision, "scale": t.scale} if t.name == "decimal" else {"name": t.name}


def cast_step(t: SpecType, **extra) -> tuple[SpecType, dict]:
    return t, {"op": "cast", "type": type_ir(t), **extra}


def need(input_type: SpecType, allowed: tuple[str, ...], name: str):
    if input_type.name not in allowed:
        raise ChainError(None, f"`{name}` takes {' or '.join(allowed)}, but the value here is {input_type}",
                         conversion_hint(input_type, allowed))


def conversion_hint(input_type: SpecType, allowed) -> str | None:
    if "string" in allowed and input_type.name != "string":
        return "add `to_string` before it"
    if "decimal" in allowed and input_type.name == "string":
        return "add `{to_decimal: [p, s]}` before it"
    if "int" in allowed and input_type.name == "string":
        return "add `to_int` before it"
    if "timestamp" in allowed and input_type.name == "string":
        return "add `{parse_ts: ISO8601}` before it"
    return None
