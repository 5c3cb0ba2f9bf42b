"""Python values as Jinja literals, so a generated model carries its resolved entity inline.

Strings are escaped down to ASCII and the characters that open or close Jinja tags are written
as escapes too, so nothing a user wrote in a spec can end a tag or start one.
"""
from __future__ import annotations

import functools
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


def _write(value, text, none: str, numbers: tuple, close: str, what: str) -> str:
    """One walk over a value for both spellings below: `text` writes a string, `none` is null's
    spelling, `numbers` the number types allowed, `close` how a mapping ends."""
    if value is None:
        return none
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, numbers):
        return json.dumps(value)
    if isinstance(value, str):
        return text(value)
    inner = functools.partial(_write, text=text, none=none, numbers=numbers, close=close, what=what)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(inner(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{text(str(k))}: {inner(v)}" for k, v in value.items()) + close
    raise TypeError(f"cannot write {type(value).__name__} as {what}")


def literal(value) -> str:
    """`value` as a Jinja literal."""
    return _write(value, string, "none", (int,), "}", "a Jinja literal")


# -- values handed to dbt outside a model's Jinja: generic-test arguments -----------------------
# dbt renders every string argument of a generic test as a Jinja template (natively, so '12'
# would come back as a number), and wraps one that looks like `ref(...)`/`env_var(...)` in
# braces first. A spec value passed as is would be executed by that pass. So a spec-derived
# argument travels as JSON text in which no tag can form: the characters that open or close a
# tag are \u-escaped inside strings, and structural braces never touch (`} }`). The test macro
# reads it back with `fromjson` (bloomery.argument), exactly as written in the spec.
def _json_string(value: str) -> str:
    return "".join(f"\\u{ord(ch):04x}" if ch in _TAG_CHARS else ch for ch in json.dumps(value, ensure_ascii=True))


def inert_argument(value) -> str:
    """`value` as inert JSON text for a generic-test argument (see above)."""
    return _write(value, _json_string, "null", (int, float), " }", "a test argument")
