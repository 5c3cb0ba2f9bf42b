"""Python values as Jinja literals, so a generated model carries its resolved entity inline.

Strings are escaped down to ASCII and the characters that open or close Jinja tags are written
as escapes too, so nothing a user wrote in a spec can end a tag or start one.
"""
from __future__ import annotations

import json

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


# -- values handed to dbt outside a model's Jinja: generic-test arguments -----------------------
# dbt renders every string argument of a generic test as a Jinja template (natively, so '12'
# would come back as a number), and wraps one that looks like `ref(...)`/`env_var(...)` in
# braces first. A spec value passed as is would be executed by that pass. So a spec-derived
# argument travels as JSON text in which no tag can form: the characters that open or close a
# tag are \u-escaped inside strings, and structural braces never touch (`} }`). The test macro
# reads it back with `fromjson` (bloomery.argument), exactly as written in the spec.
def _json(value) -> str:
    if isinstance(value, str):
        text = json.dumps(value, ensure_ascii=True)
        return "".join(f"\\u{ord(ch):04x}" if ch in _TAG_CHARS else ch for ch in text)
    if value is None or isinstance(value, (bool, int, float)):
        return json.dumps(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_json(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_json(str(k))}: {_json(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"cannot write {type(value).__name__} as a test argument")


def inert_argument(value) -> str:
    """`value` as inert JSON text for a generic-test argument (see above)."""
    return _json(value)
