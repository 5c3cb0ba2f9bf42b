"""The portable regex subset a `pattern` rule accepts (spec reference 3.4).

A pattern runs on the engine: RE2 on DuckDB, Trino and BigQuery, POSIX ARE on Postgres, Java
regex on Spark. They agree on little beyond the basics, and what one of them does not know
aborts the run instead of degrading. So this is a parser for what is allowed, not a list of what
is forbidden: anything it does not recognise is refused, by name where it has one. A construct
nobody thought of is refused too, which is the point (product page, "pattern speaks a smaller
regex than you do").

Grammar (top level additionally: every branch is `^ piece* $`):

    alternation := branch ('|' branch)*
    branch      := piece+
    piece       := atom quantifier?
    atom        := literal | '.' | class | escape | '(?:' alternation ')'
    quantifier  := '*' | '+' | '?' | '{n}' | '{n,}' | '{n,m}'
"""
from __future__ import annotations

import re
import string
from typing import NamedTuple, NoReturn

from ..errors import Refusal

__all__ = ["PortableRegexError", "check_portable_regex"]

# Postgres ARE caps a bound at 255 (RE_DUP_MAX); RE2 allows 1000, Python far more.
_MAX_BOUND = 255
# RE2 refuses counted repeats nested so deep that their product exceeds 1000.
_MAX_BOUND_PRODUCT = 1000
# Deep enough for any real pattern, shallow enough that recursion never hits Python's limit.
_MAX_DEPTH = 32

_SHORTHANDS = "dws"
_CONTROL_ESCAPES = {"t": "\t", "n": "\n", "r": "\r"}
# Escaped ASCII punctuation is the literal character on every engine; an escaped letter or
# digit means something different on each (or nothing, and aborts the run).
_PUNCTUATION = frozenset(string.punctuation)
_DIGITS = frozenset("0123456789")
_QUANTIFIERS = frozenset("*+?{")

# Escapes that have a name, with what to write instead. Everything else is "unknown escape".
_NAMED_ESCAPES = {
    "A": ("\\A anchor", "write ^ at the start of the branch"),
    "Z": ("\\Z anchor", "write $ at the end of the branch"),
    "z": ("\\z anchor", "write $ at the end of the branch"),
    "G": ("\\G anchor", "a rule matches one value; write ^"),
    "b": ("word boundary", "\\b is a boundary on RE2 and a backspace on ARE; spell the characters out"),
    "B": ("non-word boundary", "spell the characters out with a class"),
    "p": ("unicode property", "spell the characters as a class, e.g. [A-Za-z]"),
    "P": ("unicode property", "spell the characters as a negated class, e.g. [^A-Za-z]"),
    "x": ("hex escape", "write the character itself"),
    "u": ("unicode escape", "write the character itself"),
    "U": ("unicode escape", "write the character itself"),
    "N": ("named character escape", "write the character itself"),
    "k": ("backreference", "a rule captures nothing, so there is nothing to refer back to"),
    "0": ("octal escape", "write the character itself"),
}
for _d in "123456789":
    _NAMED_ESCAPES[_d] = ("backreference", "a rule captures nothing, so there is nothing to refer back to")

# `(?` openers other than `(?:`, longest first so `(?<=` wins over `(?<`.
_GROUP_OPENERS = (
    ("(?<=", "lookbehind", "the subset has no lookaround; RE2 refuses it"),
    ("(?<!", "lookbehind", "the subset has no lookaround; RE2 refuses it"),
    ("(?P<", "named group", "use (?:...): a rule captures nothing"),
    ("(?P=", "backreference", "a rule captures nothing, so there is nothing to refer back to"),
    ("(?=", "lookahead", "the subset has no lookaround; RE2 refuses it"),
    ("(?!", "lookahead", "the subset has no lookaround; RE2 refuses it"),
    ("(?<", "named group", "use (?:...): a rule captures nothing"),
    ("(?'", "named group", "use (?:...): a rule captures nothing"),
    ("(?>", "atomic group", "use (?:...); RE2 has no atomic groups"),
    ("(?#", "comment", "remove the comment; keep notes in the spec's description"),
    ("(?(", "conditional", "write the alternatives out with |"),
)
_INLINE_FLAG_CHARS = frozenset("aiLmsux-^")


class PortableRegexError(Refusal):
    """A pattern outside the portable subset.

    `construct` is a short name for what was refused ("capturing group", "unanchored pattern"),
    `position` the 0-based index in the pattern where it starts, or None.
    """

    def __init__(self, construct: str, message: str, position: int | None = None):
        where = f" at position {position}" if position is not None else ""
        super().__init__(f"{construct}{where}: {message}")
        self.construct = construct
        self.message = message
        self.position = position


class _Width(NamedTuple):
    """What a sub-pattern can match: min/max length (max None = unbounded), and the product
    of the counted repeats nested inside it (RE2's budget)."""

    lo: int
    hi: int | None
    repeat_product: int = 1


_ONE = _Width(1, 1)


def check_portable_regex(pattern: str, anchored: bool = True) -> None:
    """Raise PortableRegexError unless `pattern` is in the portable subset and (unless `anchored`
    is false: an `assert: {regex}`, which v1 lets match anywhere in the value) anchored."""
    if not isinstance(pattern, str):
        raise PortableRegexError("non-string pattern", "a pattern is a string", None)
    if pattern == "":
        raise PortableRegexError("empty pattern", "write ^$ if you mean the empty string", 0)
    _Parser(pattern, anchored).parse()
    # The subset is meant to be a subset of Python's re too; this is the belt to the braces.
    try:
        re.compile(pattern)
    except (re.error, OverflowError, RecursionError) as exc:  # pragma: no cover - parser is stricter
        raise PortableRegexError("rejected by Python re", str(exc), getattr(exc, "pos", None)) from None


class _Parser:
    def __init__(self, pattern: str, anchored: bool = True):
        self.p = pattern
        self.anchored = anchored
        self.i = 0
        self.depth = 0
        # (start, end, anchored_start, anchored_end) of each top-level branch, checked last
        # so that a structural refusal names the real problem before "unanchored" does.
        self.branches: list[tuple[int, int, bool, bool]] = []

    # -- helpers -----------------------------------------------------------------------------
    def peek(self, ahead: int = 0) -> str:
        j = self.i + ahead
        return self.p[j] if j < len(self.p) else ""

    def fail(self, construct: str, message: str, position: int | None = None) -> NoReturn:
        raise PortableRegexError(construct, message, self.i if position is None else position)

    # -- grammar -----------------------------------------------------------------------------
    def parse(self) -> None:
        self.alternation(top=True)
        if self.i < len(self.p):  # only a ')' with no '(' stops the top-level alternation
            self.fail("unbalanced parenthesis", "this ) closes nothing; escape a literal one as \\)")
        if self.anchored:
            self.check_anchors()

    def alternation(self, top: bool) -> _Width:
        starts = [self.i]
        widths = [self.branch(top)]
        while self.peek() == "|":
            self.i += 1
            starts.append(self.i)
            widths.append(self.branch(top))
        if widths == [None]:
            if top:  # stopped at a stray ')' before anything; parse() names it
                return _Width(0, 0)
            self.fail("empty group", "(?:) matches nothing; remove it", starts[0] - 3)
        for start, width in zip(starts, widths):
            if width is None:
                self.fail("empty alternative", "an empty branch of | is not portable; make the "
                          "rest optional with ? instead, e.g. (?:ab)? for (?:ab|)", start)
        his = [w.hi for w in widths]
        return _Width(min(w.lo for w in widths), None if None in his else max(his),
                      max(w.repeat_product for w in widths))

    def branch(self, top: bool) -> _Width | None:
        """One branch; None when it is empty. Anchors are only legal at its two ends."""
        start = self.i
        lo, hi, product, pieces = 0, 0, 1, 0
        anchored_start = anchored_end = False
        while self.i < len(self.p) and self.peek() not in "|)":
            c = self.peek()
            if c in "^$":
                self.anchor(top, start)
                anchored_start = anchored_start or c == "^"
                anchored_end = anchored_end or c == "$"
                pieces += 1
                continue
            w = self.piece()
            lo += w.lo
            hi = None if hi is None or w.hi is None else hi + w.hi
            product = max(product, w.repeat_product)
            pieces += 1
        if top:
            self.branches.append((start, self.i, anchored_start, anchored_end))
        return _Width(lo, hi, product) if pieces else None

    def anchor(self, top: bool, branch_start: int) -> None:
        c = self.peek()
        if self.peek(1) in _QUANTIFIERS:
            self.fail("nothing to repeat", f"an anchor cannot be repeated; remove the quantifier after {c}",
                      self.i + 1)
        if not top:
            self.fail("anchor inside group", f"{c} is only allowed at the ends of a top-level "
                      "branch; write ^(?:a|b)$ rather than (?:^a|^b)")
        at_end = self.peek(1) in ("", "|")
        if (c == "^" and self.i != branch_start) or (c == "$" and not at_end):
            self.fail("misplaced anchor", f"{c} may only open (^) or close ($) a branch; "
                      f"escape a literal one as \\{c}")
        self.i += 1

    def piece(self) -> _Width:
        if self.peek() in _QUANTIFIERS:
            self.fail("nothing to repeat", "a quantifier needs something before it; escape a "
                      f"literal one as \\{self.peek()}")
        width, is_group = self.atom()
        if self.peek() in _QUANTIFIERS:
            width = self.quantifier(width, is_group)
        return width

    def atom(self) -> tuple[_Width, bool]:
        c = self.peek()
        if c == "(":
            return self.group(), True
        if c == "[":
            self.char_class()
        elif c == "\\":
            self.escape(in_class=False)
        elif c == "]":
            self.fail("unbalanced bracket", "this ] closes no class; escape a literal one as \\]")
        elif c == "}":
            self.fail("unbalanced brace", "this } closes no {n,m}; escape a literal one as \\}")
        else:  # '.' or a literal character
            self.literal(c)
        return _ONE, False

    def literal(self, c: str) -> None:
        if ord(c) < 0x20 or ord(c) == 0x7F:
            self.fail("control character", "write \\t, \\n or \\r; other control characters "
                      "are not portable")
        self.i += 1

    def quantifier(self, inner: _Width, is_group: bool) -> _Width:
        q_start = self.i
        if self.peek() == "{":
            lo, hi = self.bounds()
        else:
            lo, hi = {"*": (0, None), "+": (1, None), "?": (0, 1)}[self.peek()]
            self.i += 1
        follow = self.peek()
        if follow == "?":
            self.fail("lazy quantifier", "a rule only asks whether the value matches, so "
                      "laziness changes nothing; drop the trailing ?")
        if follow == "+":
            self.fail("possessive quantifier", "RE2 and ARE have none; drop the trailing +")
        if follow in ("*", "{"):
            self.fail("quantifier on a quantifier", "repeat once, e.g. a{2,6} instead of "
                      "a{1,2}{2,3}, or wrap the repeated part in (?:...)")
        if hi is None and is_group and inner.lo != inner.hi:
            # (?:a+)+ or (?:a|bb)* : the same text splits into the group's repetitions in
            # exponentially many ways, and a backtracking engine tries them all on a miss.
            self.fail("variable-length repeated group", "* + and {n,} on a group whose match "
                      "length varies backtrack catastrophically; repeat a fixed-length group "
                      "like (?:ab)+, or flatten it, e.g. (?:a+)+ to a+", q_start)
        if is_group and inner.lo == 0 and (hi is None or hi > 1):
            # Beyond the spec's list, same reason: when every repetition may match nothing,
            # even a counted repeat like (?:a?){50} has 2^50 ways to fail on a short value.
            self.fail("repeated group that can match empty", "every repetition could match "
                      "nothing; repeat the inside instead, e.g. a{0,5} for (?:a?){5}", q_start)
        product = inner.repeat_product
        if self.p[q_start] == "{":  # RE2 counts only {..} repeats, by their upper bound
            product *= max(hi if hi is not None else lo, 1)
            if product > _MAX_BOUND_PRODUCT:
                self.fail("repeat count too large", f"nested counted repeats multiply past "
                          f"{_MAX_BOUND_PRODUCT}, which RE2 refuses; flatten them", q_start)
        return _Width(inner.lo * lo, None if hi is None or inner.hi is None else inner.hi * hi,
                      product)

    def bounds(self) -> tuple[int, int | None]:
        start = self.i
        self.i += 1
        lo = self.number()
        hi: int | None = lo
        if lo is None:
            if self.peek() == ",":
                self.fail("malformed quantifier", "{,m} is not portable; write {0,m}", start)
            self.fail("malformed quantifier", "{ starts a repeat {n}, {n,} or {n,m}; escape a "
                      "literal one as \\{", start)
        if self.peek() == ",":
            self.i += 1
            hi = self.number()
        if self.peek() != "}":
            self.fail("malformed quantifier", "{ starts a repeat {n}, {n,} or {n,m}; escape a "
                      "literal one as \\{", start)
        self.i += 1
        if hi is not None and lo > hi:
            self.fail("reversed quantifier bounds", f"{{{lo},{hi}}} has n > m; write {{{hi},{lo}}}",
                      start)
        if max(lo, hi or 0) > _MAX_BOUND:
            self.fail("repeat count too large", f"Postgres allows at most {_MAX_BOUND} in "
                      "{n,m}; use * or + if you mean 'many'", start)
        return lo, hi

    def number(self) -> int | None:
        start = self.i
        while self.peek() and self.peek() in _DIGITS:
            self.i += 1
        return int(self.p[start:self.i]) if self.i > start else None

    def group(self) -> _Width:
        start = self.i
        if self.peek(1) != "?":
            self.fail("capturing group", "use (?:...): a rule captures nothing")
        for opener, construct, advice in _GROUP_OPENERS:
            if self.p.startswith(opener, start):
                self.fail(construct, advice)
        if not self.p.startswith("(?:", start):
            if self.peek(2) and self.peek(2) in _INLINE_FLAG_CHARS:
                self.fail("inline flags", "engines disagree on flags; spell the case variants "
                          "out, e.g. [Aa] instead of (?i)a")
            self.fail("unknown group", "the only group in the subset is (?:...)")
        self.depth += 1
        if self.depth > _MAX_DEPTH:
            self.fail("nesting too deep", f"more than {_MAX_DEPTH} nested groups")
        self.i += 3
        width = self.alternation(top=False)
        if self.peek() != ")":
            self.fail("unbalanced parenthesis", "this (?: is never closed; add a )", start)
        self.i += 1
        self.depth -= 1
        return width

    def escape(self, in_class: bool) -> str | None:
        """Consume one escape; the character it stands for, or None for \\d \\w \\s."""
        start = self.i
        c = self.peek(1)
        if c == "":
            self.fail("trailing backslash", "escape a literal backslash as \\\\")
        self.i += 2
        if c in _SHORTHANDS:
            return None
        if c in _SHORTHANDS.upper():
            if in_class:
                self.fail("negated shorthand in class", f"ARE refuses \\{c} inside [...]; use it "
                          f"outside a class, or write the negated class out, e.g. [^0-9]", start)
            return None
        if c in _CONTROL_ESCAPES:
            return _CONTROL_ESCAPES[c]
        if c in _PUNCTUATION:
            return c
        construct, advice = _NAMED_ESCAPES.get(
            c, ("unknown escape", "only \\d \\w \\s \\D \\W \\S \\t \\n \\r and escaped "
                "punctuation are portable"))
        self.fail(construct, advice, start)

    def char_class(self) -> None:
        start = self.i
        self.i += 1
        if self.peek() == "^":
            self.i += 1
        first = self.i
        if self.peek() == "]":
            self.fail("empty class", "[] matches nothing; escape a literal ] as \\]", start)
        while self.peek() != "]":
            if self.peek() == "":
                self.fail("unbalanced bracket", "this [ is never closed; add a ]", start)
            low = self.class_char(first)
            if self.peek() == "-" and self.peek(1) == "-":
                self.fail("set operation", "-- inside a class means different things per "
                          "engine; escape a literal hyphen as \\-")
            if self.peek() == "-" and self.peek(1) not in ("]", ""):
                dash = self.i
                self.i += 1
                high = self.class_char(first)
                if low is None or high is None:
                    self.fail("shorthand in range", "a range joins two characters; \\d \\w \\s "
                              "cannot be one end", dash)
                if ord(high) < ord(low):
                    self.fail("reversed range", f"{low}-{high} runs backwards; write {high}-{low}",
                              dash)
        self.i += 1
        body = self.p[first:self.i - 1]
        if len(body) >= 2 and body[0] == ":" and body[-1] == ":":
            self.fail("POSIX class", f"[{body}] looks like a POSIX class; spell the characters "
                      "out, e.g. [A-Za-z] for [[:alpha:]]", start)

    def class_char(self, first: int) -> str | None:
        """One member of a class; the character, or None for \\d \\w \\s."""
        c, nxt = self.peek(), self.peek(1)
        if c in "-&~|" and nxt == c:
            # Python reads these pairs as future set operations and Java as real ones.
            self.fail("set operation", f"{c}{c} inside a class means different things per "
                      f"engine; escape it as \\{c}")
        if c == "[":
            if nxt in (":", ".", "="):
                self.fail("POSIX class", "[:name:], [.x.] and [=x=] are not portable; spell the "
                          "characters out, e.g. [A-Za-z] for [[:alpha:]]")
            self.fail("nested class", "escape a literal [ inside a class as \\[")
        if c == "\\":
            return self.escape(in_class=True)
        if c == "-" and self.i != first and nxt != "]":
            self.fail("ambiguous hyphen", "a literal - goes first or last in the class, or "
                      "escaped as \\-")
        self.literal(c)
        return c

    # -- anchoring -----------------------------------------------------------------------
    def check_anchors(self) -> None:
        """Every top-level branch must be ^...$: SQL regex predicates match substrings."""
        for start, end, anchored_start, anchored_end in self.branches:
            if anchored_start and anchored_end:
                continue
            suggestion = "|".join(
                "^" + self.p[s + a_start:e - a_end] + "$"
                for s, e, a_start, a_end in self.branches
            )
            missing = "^ at its start" if not anchored_start else "$ at its end"
            raise PortableRegexError(
                "unanchored pattern",
                f"every branch needs ^...$ or it matches anywhere inside the value (this one "
                f"lacks {missing}); write {suggestion}",
                start if not anchored_start else end,
            )
