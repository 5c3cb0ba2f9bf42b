"""How a value is written into the page, for every section: escaped (reject payloads are user
data), numbers grouped, times to the minute, rates as percents, and the words for each
disposition that the rules table and the reject sample both show.
"""
from __future__ import annotations

import html
import re

from ..terminal import inert
from .model import as_text

ISO_SECONDS = re.compile(r"^\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d")

DISPOSITIONS = {
    "flag": "kept in the entity, named in <code>_quality_flags</code>",
    "quarantine": "diverted to <code>&lt;entity&gt;__reject</code>; replayable",
    "fail": "stops the build",
}


def esc(value) -> str:
    """Text as the page shows it: HTML-escaped, and inert (terminal.py) first, because a browser
    obeys what a terminal would: a bidirectional override (U+202E) in a column name reorders the
    rest of its line, a zero-width character hides a difference between two names, and ESC is
    drawn as nothing. Each is written as a visible escape (`\\u202e`), as the CLI writes it."""
    return html.escape(inert(as_text(value)), quote=True)


def num(value: int | None) -> str:
    return "–" if value is None else f"{value:,}"


def when(value) -> str:
    """A timestamp to the minute; text that is not one stays as it is."""
    text = as_text(value)
    if ISO_SECONDS.match(text):
        return text[:16].replace("T", " ")
    return text


def pct(value: float | None, digits: int = 1) -> str:
    return "–" if value is None else f"{value * 100:.{digits}f}%"
