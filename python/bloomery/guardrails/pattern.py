"""Pattern size guardrail: how large a portable regex grows once its counted repeats are written out.

Decides a pattern's position count and the limit (PATTERN_MAX_POSITIONS) the engines can compile.
"""
from __future__ import annotations

import re

# A pattern's size once its counted repeats are written out. Measured on the shipped engines:
# PostgreSQL 15 refuses `[a-z]{255}` repeated 180 times (45,900 positions) with "regular
# expression is too complex"; DuckDB's RE2 refuses `.{1,255}` x 250 with "pattern too large" and
# takes seconds to compile x 150. Real rules stay far below this limit.
PATTERN_MAX_POSITIONS = 5000


def _pattern_positions(regex: str) -> int:
    """How many character positions `regex` stands for once counted repeats are written out:
    what an engine's compiled program grows with. Assumes the portable subset (already checked)."""
    total_stack: list[list[int]] = [[0, 0]]   # per open group: [sum of finished branches, current branch]
    last = 0                                   # size of the last atom, for a quantifier after it
    i, n = 0, len(regex)
    while i < n:
        c = regex[i]
        if c == "\\":
            last, i = 1, i + 2
        elif c == "[":
            j = i + 1
            if j < n and regex[j] == "^":
                j += 1
            while j < n and regex[j] != "]":
                j += 2 if regex[j] == "\\" else 1
            last, i = 1, j + 1
        elif c == "(":
            total_stack.append([0, 0])
            i += 3 if regex.startswith("(?:", i) else 1
            continue
        elif c == ")":
            finished, current = total_stack.pop() if len(total_stack) > 1 else total_stack[-1]
            last, i = finished + current, i + 1
        elif c == "|":
            total_stack[-1][0] += total_stack[-1][1]
            total_stack[-1][1] = 0
            i += 1
            continue
        elif c in "^$":
            i += 1
            continue
        elif c in "*+?":
            i += 1
            continue  # the atom already counted once
        elif c == "{":
            m = re.match(r"\{(\d+)(,(\d*))?\}", regex[i:])
            if m:
                low = int(m.group(1))
                high = int(m.group(3)) if m.group(3) else (low + 1 if m.group(2) else low)
                total_stack[-1][1] += last * (max(high, 1) - 1)
                i += m.end()
                continue
            last, i = 1, i + 1
        else:
            last, i = 1, i + 1
        total_stack[-1][1] += last
    finished, current = total_stack[0]
    while len(total_stack) > 1:  # unbalanced input: count what is open
        f, cur = total_stack.pop()
        current += f + cur
    return finished + current
