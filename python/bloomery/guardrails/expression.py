"""The `expression` entity rule (spec reference 3.5).

An expression rule is one boolean-shaped SQL expression over the entity's own columns; its
violation is `NOT (expr)`. The compiler cannot know the engine's identifier quoting, so it
hands dbt the expression in parts: the SQL text sqlglot regenerates, cut at every column
reference, and the references themselves (an index into `columns`). The macro joins them once,
quoting each column with the engine's own quoting; no text is searched or replaced after a name
is in it, so a column name can never be read as SQL (docs/design.md, "Expressions in parts").

What is accepted is deliberately narrow. The template lands verbatim inside generated SQL on
several engines, so besides the shape rules of the spec it must never carry a statement
separator or a comment, and nothing that the engines (or dbt's Jinja pass) would read
differently from sqlglot.

A spec is data, never code (issue 18): an expression may only compute over the row's columns.
Every node of the parsed tree must be of a class on an allow-list (expression_subset.py), so an
unknown function (`sleep_ms(3000)`, `pg_terminate_backend(1)`, `lo_import(...)`) is refused
by name rather than handed to the warehouse. The list holds only what sqlglot writes back, in
its default dialect, as text that runs with the same meaning on every engine bloomery renders
for, because the one template is used verbatim on all of them.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Iterable, Sequence

import sqlglot
from sqlglot import exp
from sqlglot.errors import ErrorLevel, ParseError, SqlglotError
from sqlglot.tokens import TokenType

from ..vocabulary import PLACEHOLDER
from .expression_subset import (ALLOWED_FUNCTIONS, EXTRACT_FIELDS, ExpressionError, is_qualified,
                                refuse_forbidden_nodes, refuse_unlisted)

# ALLOWED_FUNCTIONS and EXTRACT_FIELDS are the documented vocabulary (docs/quality-rules.md)
__all__ = ["ALLOWED_FUNCTIONS", "EXTRACT_FIELDS", "CheckedExpression", "ExpressionError", "check_expression",
           "column_token"]

# Everything holding this, in any case, is ours: the draft tokens below cut the regenerated SQL,
# so it is refused anywhere in the text (and, vocabulary.PLACEHOLDER, in every name).
_RESERVED_PREFIX = PLACEHOLDER
_DRAFT_RE = re.compile(r"__bloomery_draft_(\d+)__")

# The shapes that are a condition by themselves. AND/OR/NOT and parentheses are accepted
# around them (see _not_boolean_shaped); anything else is a value, not a rule.
_PREDICATES = (
    exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NullSafeEQ, exp.NullSafeNEQ,
    exp.In, exp.Between, exp.Is, exp.Like, exp.ILike, exp.Boolean,
)

@dataclass(frozen=True)
class CheckedExpression:
    """`parts` is the expression as SQL text (a str) and column references (an int i, for
    `columns[i]`), in order; the macro writes each reference with the engine's quoting."""

    parts: tuple[str | int, ...]
    columns: tuple[str, ...]

    @property
    def template(self) -> str:
        """The parts with `__bloomery_col_<i>__` for reference i: for reading, never rendered."""
        return "".join(column_token(p) if isinstance(p, int) else p for p in self.parts)

    def render(self, identifiers: Sequence[str]) -> str:
        """The parts joined, reference i written as identifiers[i] (already quoted for the
        engine): one pass, as the macro does."""
        if len(identifiers) != len(self.columns):
            raise ValueError(f"expected {len(self.columns)} identifiers, got {len(identifiers)}")
        return "".join(identifiers[p] if isinstance(p, int) else p for p in self.parts)


def column_token(index: int) -> str:
    return f"__bloomery_col_{index}__"


def check_expression(expr: str, known_columns: Iterable[str], boolean_columns: Iterable[str] = ()) -> CheckedExpression:
    """Check one `expression` rule's `expr` against the entity's columns; raise ExpressionError.
    A column in `boolean_columns` (declared `bool`) is a condition by itself: `NOT is_deleted`."""
    if not isinstance(expr, str):
        raise ExpressionError(f"expr must be a string of SQL, got {type(expr).__name__}")
    if not expr.strip():
        raise ExpressionError("expr is empty; write one condition such as `quantity > 0`")
    for opener in ("{{", "{%", "{#"):
        if opener in expr:
            # dbt renders model SQL through Jinja, so this would run as a template, not compare.
            raise ExpressionError(f"expr contains the Jinja delimiter {opener!r}; an expression "
                                  "rule is plain SQL, compare against a literal value instead")
    if _RESERVED_PREFIX in expr.lower():
        raise ExpressionError(f"expr contains {_RESERVED_PREFIX!r}, which bloomery reserves for "
                              "its column placeholders; choose another value or name")

    tree = _parse_one(expr)
    refuse_forbidden_nodes(tree)
    refuse_unlisted(tree)
    known = tuple(known_columns)
    booleans = set(boolean_columns)
    offender = _not_boolean_shaped(tree, lambda name: _resolve(name, known) in booleans)
    if offender is not None:
        raise ExpressionError(
            f"`{offender.sql(comments=False)}` is not a condition; an expression rule is built "
            "from comparisons, IN, BETWEEN, IS [NOT] NULL, LIKE/ILIKE and TRUE/FALSE joined by "
            "AND/OR/NOT, and bool columns: write e.g. `a + b > 0` rather than `a + b`"
        )
    return _template(tree, known)


def _parse_one(expr: str) -> exp.Expression:
    try:
        tokens = sqlglot.tokenize(expr)
    except SqlglotError as exc:
        raise ExpressionError(f"cannot read expr: {_first_line(exc)}") from None
    # Refused on the tokens, before parsing: a ';' is never part of one expression, and the
    # parser would otherwise quietly drop a trailing one.
    for position, token in enumerate(tokens):
        if token.token_type == TokenType.SEMICOLON:
            if any(t.token_type != TokenType.SEMICOLON for t in tokens[position + 1:]):
                raise ExpressionError("expr holds more than one statement; an expression rule "
                                      "is one condition with no ';'")
            raise ExpressionError("expr ends with ';'; remove it, an expression rule is one "
                                  "condition, not a statement")
    try:
        statements = sqlglot.parse(expr, error_level=ErrorLevel.RAISE)
    except ParseError as exc:
        detail = exc.errors[0] if exc.errors else {}
        where = f" (line {detail['line']}, column {detail['col']})" if detail.get("line") else ""
        what = detail.get("description") or _first_line(exc)
        raise ExpressionError(f"cannot parse expr{where}: {what}; write one SQL condition "
                              "such as `quantity > 0`") from None
    except (SqlglotError, RecursionError) as exc:
        raise ExpressionError(f"cannot parse expr: {_first_line(exc)}") from None
    except Exception as exc:  # noqa: BLE001 - sqlglot's parser itself trips on some input
        # e.g. `INTERVAL -` raises AttributeError inside sqlglot 30; that is still unparseable
        # text, so the author gets a located spec error rather than a traceback.
        raise ExpressionError(f"cannot parse expr ({type(exc).__name__} in the SQL parser); "
                              "write one SQL condition such as `quantity > 0`") from None
    statements = [s for s in statements if s is not None]
    if not statements:
        raise ExpressionError("expr has no SQL in it (only comments?); write one condition "
                              "such as `quantity > 0`")
    if len(statements) > 1:  # pragma: no cover - the ';' check above gets there first
        raise ExpressionError("expr holds more than one statement; write one condition")
    return statements[0]


def _not_boolean_shaped(node: exp.Expression, is_boolean) -> exp.Expression | None:
    """The first part of the tree that is a value where a condition is needed, or None."""
    if isinstance(node, exp.Paren):
        return _not_boolean_shaped(node.this, is_boolean)
    if isinstance(node, (exp.And, exp.Or)):
        return _not_boolean_shaped(node.this, is_boolean) or _not_boolean_shaped(node.expression, is_boolean)
    if isinstance(node, exp.Not):
        return _not_boolean_shaped(node.this, is_boolean)
    if isinstance(node, exp.Column) and not is_qualified(node) and is_boolean(node.name):
        return None
    return None if isinstance(node, _PREDICATES) else node


def _template(tree: exp.Expression, known: tuple[str, ...]) -> CheckedExpression:
    # Draft tokens first, numbered by tree position; the final numbering follows the order the
    # columns appear in the generated SQL, which is what a reader of the template sees.
    # the clock functions as standard SQL spells them: sqlglot's default `CURRENT_TIMESTAMP()`
    # is not DuckDB's (which has no such function with parentheses)
    for clock in list(tree.find_all(exp.CurrentTimestamp, exp.CurrentDate)):
        if not clock.args.get("this"):
            clock.replace(exp.Var(this="CURRENT_TIMESTAMP" if isinstance(clock, exp.CurrentTimestamp) else "CURRENT_DATE"))
    # `a % b` as MOD(a, b): BigQuery has no % operator, every engine has MOD
    for mod in reversed(list(tree.find_all(exp.Mod))):
        mod.replace(exp.Anonymous(this="MOD", expressions=[mod.this, mod.expression]))
    names: list[str] = []
    for column in list(tree.find_all(exp.Column)):
        names.append(_resolve(column.name, known))
        draft_token = exp.Var(this=f"__bloomery_draft_{len(names) - 1}__")
        # a bare bool column is the whole tree: replacing the root leaves `tree` the old node
        tree = draft_token if column is tree else tree
        column.replace(draft_token)
    draft = tree.sql(comments=False)

    # The draft is sqlglot's text, and the expression held no `__bloomery_` in any case (refused
    # above), so every draft token in it is one of ours: one split cuts it into parts.
    columns: list[str] = []
    parts: list[str | int] = []
    for i, piece in enumerate(_DRAFT_RE.split(draft)):
        if i % 2 == 0:
            if piece:
                parts.append(piece)
            continue
        name = names[int(piece)]
        if name not in columns:
            columns.append(name)
        parts.append(columns.index(name))
    checked = CheckedExpression(parts=tuple(parts), columns=tuple(columns))
    _assert_inert(checked.template)
    return checked


def _resolve(name: str, known: tuple[str, ...]) -> str:
    """Exact name first, else a case-insensitive match if there is exactly one."""
    if name in known:
        return name
    folded = sorted({k for k in known if k.lower() == name.lower()})
    if len(folded) == 1:
        return folded[0]
    if folded:
        raise ExpressionError(f"column `{name}` matches {', '.join(folded)} ignoring case; "
                              'write the exact name in double quotes, e.g. "' + folded[0] + '"')
    by_lower = {k.lower(): k for k in sorted(known)}
    close = [by_lower[m] for m in difflib.get_close_matches(name.lower(), list(by_lower), n=3)]
    if close:
        hint = "did you mean " + " or ".join(f"`{c}`" for c in close) + "?"
    elif known:
        hint = "known columns: " + ", ".join(sorted(set(known)))
    else:
        hint = "the entity has no columns to refer to"
    raise ExpressionError(f"unknown column `{name}` in expr; {hint}")


def _assert_inert(template: str) -> None:
    """The template goes verbatim into SQL: nothing outside a '...' literal may end the
    statement or start a comment. sqlglot should never produce one; this makes sure."""
    outside, in_string, i = [], False, 0
    while i < len(template):
        c = template[i]
        if in_string:
            if c == "'" and template[i + 1:i + 2] == "'":
                i += 2
                continue
            in_string = c != "'"
        elif c == "'":
            in_string = True
        else:
            outside.append(c)
        i += 1
    text = "".join(outside)
    if in_string or ";" in text or "--" in text or "/*" in text:
        raise ExpressionError(f"expr regenerates to `{template}`, which is not safe to embed "
                              "in SQL; simplify it")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    # sqlglot underlines the offending token with ANSI codes; keep the words only.
    return re.sub(r"\x1b\[[0-9;]*m", "", text[0]) if text else type(exc).__name__
