"""The temporal transforms' lowerings: `parse_date`/`parse_ts` formats (the directives every
engine's port reads) and `to_utc`'s zone (an IANA name, checked against this machine's zone
database when it has one)."""
from __future__ import annotations

import difflib
import re
import zoneinfo

from .steps import ChainError, cast_step, need, type_ir
from .types import TIMESTAMP, SpecType


def parse_temporal(out: SpecType, name: str):
    def lower(t, args):
        need(t, ("string",), name)
        fmt = args[0]
        if fmt.upper() == "ISO8601":
            return cast_step(out, iso=True)
        if "%" not in fmt:
            raise ChainError(None, f"`{name}` format {fmt!r} has no % directive",
                             "write ISO8601 or a strftime-style format such as '%d/%m/%Y'")
        _check_format(name, fmt)
        return out, {"op": "parse_format", "format": fmt, "type": type_ir(out)}
    return lower


# The directives every engine's port reads (PostgreSQL parses the format itself, by a regex built
# per directive), and the separators real formats use: anything else would fail in the warehouse
# at run time, or carry text into SQL that is not a date format.
_FORMAT_DIRECTIVES = set("YmdHMS")
_FORMAT_LITERAL = re.compile(r"[0-9 \-/:.,_]")


def _check_format(name: str, fmt: str):
    seen: set[str] = set()
    chars = iter(fmt)
    for ch in chars:
        if ch == "%":
            d = next(chars, "")
            if d == "%":
                continue
            if d not in _FORMAT_DIRECTIVES or d in seen:
                what = "a lone % at the end" if not d else f"%{d} twice" if d in seen else f"%{d}"
                raise ChainError(None, f"`{name}` format {fmt!r} uses {what}",
                                 "use ISO8601, or the directives %Y %m %d %H %M %S (each at most once) and %%")
            seen.add(d)
        elif not _FORMAT_LITERAL.fullmatch(ch):
            raise ChainError(None, f"`{name}` format {fmt!r} holds {ch!r}, which is not a date separator",
                             "separate the directives with spaces, digits or one of - / : . , _ (a letter is a pattern letter on Spark)")


# An IANA zone name: what every engine's time-zone conversion takes (checked against this
# machine's zone database when it has one, so a misspelt zone is refused here, not in the warehouse)
_ZONE = re.compile(r"[A-Za-z][A-Za-z0-9_+\-]*(?:/[A-Za-z0-9_+\-]+)*")


def lower_to_utc(t, args):
    need(t, ("timestamp",), "to_utc")
    zone = args[0]
    known = zoneinfo.available_timezones()
    if not _ZONE.fullmatch(zone) or (known and zone not in known and zone != "UTC"):
        close = difflib.get_close_matches(zone, sorted(known), n=1) if known else []
        raise ChainError(None, f"`to_utc` zone {zone!r} is not a time-zone name",
                         f"did you mean {close[0]!r}?" if close else "write an IANA zone such as Europe/Paris")
    return TIMESTAMP, {"op": "to_utc", "zone": args[0]}
