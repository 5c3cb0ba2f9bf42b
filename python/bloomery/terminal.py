"""Text bloomery writes for a terminal or a CI log is inert: it can say a value, never act on the
screen.

A bronze value (through an engine's error message), a spec value (through a refusal that quotes
it) or a dbt message can hold control characters: ESC opens escape sequences that clear the
screen, retitle the window or hide what follows; CR and BEL rewrite or ring; a newline inside a
value starts a line that looks like bloomery's own. So every text writer (`check`, `compile`,
`plan`, `summary`, `report`'s progress and errors, the refusals) passes what it prints through
`inert`, which writes each such character as a visible escape (`\\x1b`, `\\r`, `\\n`, `\\u202e`).
JSON output is left alone: the JSON encoder escapes control characters itself, and its values
stay exact. The HTML report escapes for HTML instead (report/markup.py).

Escaped: C0 (U+0000 to U+001F, tab and newline included), DEL, C1 (U+0080 to U+009F), the Unicode
line and paragraph separators (U+2028, U+2029), which some viewers break lines at, and the
bidirectional embeddings, overrides and isolates (U+202A to U+202E, U+2066 to U+2069), which
reorder what a reader sees, and the invisible ones (zero-width space, joiners and direction marks
U+200B to U+200F, U+2060 to U+2064, the byte-order mark U+FEFF), which hide a difference between
two names that print alike. A backslash is not doubled: the text is for reading, not for parsing.
"""
from __future__ import annotations

import re

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match) -> str:
    ch = match.group()
    return _NAMED.get(ch) or (f"\\x{ord(ch):02x}" if ord(ch) <= 0xFF else f"\\u{ord(ch):04x}")


def inert(text) -> str:
    """`text` as one line a terminal only displays: every control character escaped, a newline too."""
    return _CONTROL.sub(_escape, str(text))


def inert_lines(text) -> str:
    """Text whose line breaks are the writer's own (a dbt message, several lines by design): each
    line made inert, the breaks kept."""
    return "\n".join(inert(line) for line in str(text).split("\n"))
