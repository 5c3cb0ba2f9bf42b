"""Python values as Jinja literals, so a generated model carries its resolved entity inline.

Strings are escaped down to ASCII and the characters that open or close Jinja tags are written
as escapes too, so nothing a user wrote in a spec can end a tag or start one.
"""
from __future__ import annotations

_SAFE = {"\\": "\\\\", '"': '\\"'}
_TAG_CHARS = set("{}%#")


def string(value: str) -> str:
    out = ['"']
    for ch in value:
        if ch in _SAFE:
            out.append(_SAFE[ch])
        elif ch in _TAG_CHARS or not (" " <= ch <= "~"):
            code = ord(ch)
            out.append(f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def literal(value) -> str:
    if value is None:
        return "none"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return string(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{string(str(k))}: {literal(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"cannot write {type(value).__name__} as a Jinja literal")
