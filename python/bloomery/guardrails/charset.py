"""Charset guardrail: a rule's codepoint list, checked and expanded.

Decides which `U+XXXX` items and ranges make a valid charset (no backwards ranges, nothing past
U+10FFFF, no surrogates) and caps its size at CHARSET_MAX codepoints.
"""
from __future__ import annotations

from .. import errors as E

CHARSET_MAX = 1024


class _CharsetError(E.Refusal):
    def __init__(self, message: str, where: tuple = ()):
        super().__init__(message)
        self.where = where


def _codepoints(items: list[str]) -> list[int]:
    ranges = []
    for i, item in enumerate(items):
        parts = item.split("-")
        lo = int(parts[0][2:], 16)
        hi = int(parts[1][2:], 16) if len(parts) == 2 else lo
        if hi < lo:
            raise _CharsetError(f"codepoint range {item} runs backwards", (i,))
        if hi > 0x10FFFF:
            raise _CharsetError(f"{item} is beyond U+10FFFF, the last Unicode codepoint", (i,))
        if lo <= 0xDFFF and hi >= 0xD800:
            raise _CharsetError(f"{item} includes surrogates (U+D800-U+DFFF), which are not characters", (i,))
        if hi - lo + 1 > CHARSET_MAX:
            raise _CharsetError(f"{item} spans {hi - lo + 1} codepoints; a charset holds at most {CHARSET_MAX}", (i,))
        ranges.append((lo, hi))
    points: set[int] = set()
    for lo, hi in ranges:
        points.update(range(lo, hi + 1))
    if len(points) > CHARSET_MAX:
        raise _CharsetError(f"the charset holds {len(points)} distinct codepoints; at most {CHARSET_MAX} are allowed")
    return sorted(points)
