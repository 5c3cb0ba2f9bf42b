"""What SQL an `expression` rule may contain: the allow-list and the refusals that say why.

expression.py parses a rule and writes its template; this module is the vocabulary it is
judged against. Every node of the parsed tree must be of a class listed in `_ALLOWED_ARGS`, with
only the arguments listed for it, so an unknown function is refused by name rather than handed
to the warehouse (a spec is data, never code). What is listed is only what sqlglot writes back,
in its default dialect, as text that means the same on every engine bloomery renders for.
"""
from __future__ import annotations

import difflib

from sqlglot import exp
from sqlglot.expressions.core import AggFunc
from sqlglot.expressions.ddl import DDL
from sqlglot.expressions.dml import DML
from sqlglot.expressions.query import Query

from ..errors import Refusal

class ExpressionError(Refusal):
    """An `expression` rule refused; the message says what is wrong and what to write."""


_QUERY_NODES = (
    Query, exp.Exists, exp.Unnest, exp.Table, exp.Lateral, exp.Join, exp.From, exp.Where,
    exp.With, exp.CTE, exp.Into,
)
_STATEMENT_NODES = (DDL, DML, exp.Command, exp.Drop, exp.Alter, exp.Set, exp.Use,
                    exp.Transaction, exp.Commit, exp.Rollback, exp.Pragma, exp.Grant)
_PARAMETER_NODES = (exp.Placeholder, exp.Parameter, exp.SessionParameter)
# Engine-specific literal syntaxes (N'', X'', B'', U&'', $$...$$): each engine reads them
# differently or not at all, and a plain '...' string says the same thing.
_EXOTIC_LITERALS = (exp.National, exp.RawString, exp.HexString, exp.ByteString,
                    exp.BitString, exp.UnicodeString, exp.Heredoc)


# The allow-list: node class -> the arguments it may carry. An argument outside the set (e.g.
# TRIM's characters, ROUND's truncate flag, CAST's FORMAT) is a non-portable form of an allowed
# function and is refused like an unknown one. Operators and structure first.
_BINARY = frozenset({"this", "expression"})
_ALLOWED_ARGS: dict[type, frozenset[str]] = {
    exp.Column: frozenset({"this"}),
    exp.Identifier: frozenset({"this", "quoted"}),
    exp.Literal: frozenset({"this", "is_string"}),
    exp.Null: frozenset(),
    exp.Boolean: frozenset({"this"}),
    exp.Paren: frozenset({"this"}),
    exp.And: _BINARY, exp.Or: _BINARY, exp.Not: frozenset({"this"}),
    exp.EQ: _BINARY, exp.NEQ: _BINARY, exp.GT: _BINARY, exp.GTE: _BINARY, exp.LT: _BINARY,
    exp.LTE: _BINARY, exp.NullSafeEQ: _BINARY, exp.NullSafeNEQ: _BINARY,
    exp.Is: _BINARY | {"negate"},
    exp.In: frozenset({"this", "expressions"}),
    exp.Between: frozenset({"this", "low", "high"}),
    exp.Like: _BINARY | {"negate"}, exp.ILike: _BINARY | {"negate"},
    exp.Add: _BINARY, exp.Sub: _BINARY, exp.Mul: _BINARY, exp.Div: _BINARY | {"typed", "safe"},
    exp.Mod: _BINARY | {"safe"}, exp.Neg: frozenset({"this"}),
    exp.DPipe: _BINARY | {"safe"},
    exp.Case: frozenset({"this", "ifs", "default"}),
    exp.If: frozenset({"this", "true"}),  # a WHEN branch of a CASE (see refuse_unlisted)
    exp.Cast: frozenset({"this", "to"}),
    exp.DataType: frozenset({"this", "expressions", "nested"}),
    exp.DataTypeParam: frozenset({"this"}),
    exp.Var: frozenset({"this"}),  # only as EXTRACT's field (see refuse_unlisted)
    # functions
    exp.Coalesce: frozenset({"this", "expressions", "is_nvl", "is_null"}),
    exp.Nullif: _BINARY,
    exp.Length: frozenset({"this"}),
    exp.Lower: frozenset({"this"}),
    exp.Upper: frozenset({"this"}),
    exp.Trim: frozenset({"this", "position"}),  # trim/ltrim/rtrim of blanks, no characters
    exp.Substring: frozenset({"this", "start", "length"}),
    exp.Replace: frozenset({"this", "expression", "replacement"}),
    exp.Abs: frozenset({"this"}),
    exp.Round: frozenset({"this", "decimals"}),
    exp.Floor: frozenset({"this"}),
    exp.Ceil: frozenset({"this"}),
    exp.Extract: _BINARY,
    exp.CurrentDate: frozenset(),
    exp.CurrentTimestamp: frozenset(),
}

# The documented function names (docs/quality-rules.md), each with the class it parses to;
# tests/unit/guardrails/test_expression.py checks the pairing against sqlglot. sqlglot reads a few more
# spellings as the same class (substr, char_length, ceiling, ifnull, nvl) and writes them back
# in the standard form, so those are accepted too.
ALLOWED_FUNCTIONS: dict[str, type] = {
    "abs": exp.Abs, "cast": exp.Cast, "ceil": exp.Ceil, "coalesce": exp.Coalesce,
    "current_date": exp.CurrentDate, "current_timestamp": exp.CurrentTimestamp,
    "extract": exp.Extract, "floor": exp.Floor, "length": exp.Length, "lower": exp.Lower,
    "ltrim": exp.Trim, "mod": exp.Mod, "nullif": exp.Nullif, "replace": exp.Replace,
    "round": exp.Round, "rtrim": exp.Trim, "substring": exp.Substring, "trim": exp.Trim,
    "upper": exp.Upper,
}
_ALIASES = ("substr", "char_length", "character_length", "ceiling", "ifnull", "nvl")

# EXTRACT fields that every engine names and numbers alike (SECOND carries a fraction on some
# engines and not on others; DOW/WEEK are numbered differently).
EXTRACT_FIELDS = ("YEAR", "QUARTER", "MONTH", "DAY", "HOUR", "MINUTE")
# CAST targets: the spec's types, spelled as every engine reads them. No string type: there
# is none (TEXT, VARCHAR, STRING) that all of them accept, and a string column needs no cast.
_CAST_TYPES = {
    exp.DataType.Type.INT: "INT", exp.DataType.Type.BIGINT: "BIGINT",
    exp.DataType.Type.DECIMAL: "DECIMAL(p, s)", exp.DataType.Type.BOOLEAN: "BOOLEAN",
    exp.DataType.Type.DATE: "DATE", exp.DataType.Type.TIMESTAMP: "TIMESTAMP",
}

# What to write instead of a function that real rules reach for but that has no spelling
# meaning the same on every engine (the NULL handling of concat/greatest/least differs, the
# argument order of date_trunc differs, starts_with is missing on some).
_INSTEAD = {name: write for write, names in {
    "`a || b`": ("concat",),
    "`x LIKE 'prefix%'`": ("starts_with", "startswith"),
    "`x LIKE '%suffix'`": ("ends_with", "endswith"),
    "a CASE expression": ("greatest", "least"),
    "CASE WHEN ... THEN ... ELSE ... END": ("if", "iif"),
    "`current_timestamp`": ("now", "getdate", "sysdate", "localtimestamp"),
    "`current_date`": ("today",),
    "`EXTRACT(YEAR FROM col)`": ("date_part", "datepart", "year"),
    "`EXTRACT(QUARTER FROM col)`": ("quarter",), "`EXTRACT(MONTH FROM col)`": ("month",),
    "`EXTRACT(DAY FROM col)`": ("day",), "`EXTRACT(HOUR FROM col)`": ("hour",),
    "`EXTRACT(MINUTE FROM col)`": ("minute",),
    "`CAST(x AS type)`": ("try_cast", "safe_cast"),
    "`length(x)`": ("len", "strlen"),
}.items() for name in names}
# How an allowed function may be written, for the refusal of a form outside its arguments.
_FORMS = {
    exp.Trim: "`trim(x)`, `ltrim(x)` or `rtrim(x)`", exp.Round: "`round(x)` or `round(x, digits)`",
    exp.Floor: "`floor(x)`", exp.Ceil: "`ceil(x)`", exp.Length: "`length(x)`",
    exp.Substring: "`substring(x, start)` or `substring(x, start, length)`",
    exp.Replace: "`replace(x, from, to)`", exp.Cast: "`CAST(x AS type)`",
    exp.Between: "`x BETWEEN low AND high`", exp.In: "`x IN (value, ...)`",
    exp.CurrentDate: "`current_date`", exp.CurrentTimestamp: "`current_timestamp`",
    exp.Column: "a bare column name",
}


def refuse_forbidden_nodes(tree: exp.Expression) -> None:
    for node in tree.walk():
        if isinstance(node, _STATEMENT_NODES) or type(node).__module__.endswith((".ddl", ".dml")):
            raise ExpressionError(f"expr contains a statement ({node.key.upper()}); an "
                                  "expression rule is one condition over the row")
        if isinstance(node, _QUERY_NODES):
            raise ExpressionError("expr contains a subquery; an expression rule sees only the "
                                  "row's own columns (use a referential rule to look at "
                                  "another entity)")
        if isinstance(node, _PARAMETER_NODES):
            raise ExpressionError(f"expr contains the parameter `{node.sql()}`; write the "
                                  "value as a literal")
        if isinstance(node, exp.Star):
            raise ExpressionError("expr contains `*`; name the columns")
        if isinstance(node, (AggFunc, exp.Window)):
            raise ExpressionError(f"expr uses `{node.sql()}`, which looks across rows; an "
                                  "expression rule judges one row at a time")
        if isinstance(node, (exp.Dot, exp.Column)) and is_qualified(node):
            raise ExpressionError(f"`{node.sql()}` is a qualified column; write the bare "
                                  "column name, the rule sees only this entity's row")
        if isinstance(node, _EXOTIC_LITERALS):
            raise ExpressionError(f"`{node.sql()}` is an engine-specific literal; write a "
                                  "plain '...' string")
        if isinstance(node, exp.Literal) and node.is_string and "\\" in node.this:
            # Spark, Databricks and BigQuery read a backslash in '...' as an escape, the
            # others as itself: the same literal would end in different places.
            raise ExpressionError("a backslash inside a string literal is read differently "
                                  "per engine; leave it out or use a pattern rule")


def refuse_unlisted(tree: exp.Expression) -> None:
    """Every node must be on the allow-list, with only the arguments listed for it. Runs after
    refuse_forbidden_nodes, whose refusals (subquery, aggregate, ...) say more."""
    for node in tree.walk():
        kind = type(node)  # the exact class: a subclass may be a different construct
        allowed = _ALLOWED_ARGS.get(kind)
        if allowed is None or (kind is exp.If and not isinstance(node.parent, exp.Case)):
            raise ExpressionError(_unlisted_message(node))
        extra = sorted(k for k, v in node.args.items() if k not in allowed and v not in (None, False, []))
        if kind is exp.Replace and node.args.get("replacement") is None:
            extra = ["two arguments"]  # replace(x, from) deletes on some engines, fails on others
        if extra:
            name = _function_name(node)
            form = _FORMS.get(kind, f"`{name}` without `{extra[0]}`")
            raise ExpressionError(f"`{node.sql(comments=False)}` uses a form of {name} that is "
                                  f"not read the same on every engine; write {form}")
        if kind is exp.Var and not (isinstance(node.parent, exp.Extract) and node.arg_key == "this"):
            raise ExpressionError(_unlisted_message(node))
        if kind is exp.Extract and not (isinstance(node.this, exp.Var) and node.this.name.upper() in EXTRACT_FIELDS):
            raise ExpressionError(f"`{node.sql(comments=False)}`: EXTRACT takes one of "
                                  f"{', '.join(EXTRACT_FIELDS)} (unquoted), the fields every "
                                  "engine numbers alike")
        if kind is exp.Is and not isinstance(node.expression, (exp.Null, exp.Boolean)):
            raise ExpressionError(f"`{node.sql(comments=False)}`: IS compares with NULL, TRUE "
                                  "or FALSE only; write `=` or IS [NOT] DISTINCT FROM")
        if kind is exp.DataType:  # its DataTypeParam children are judged here too
            _check_cast_type(node)


def _check_cast_type(node: exp.DataType) -> None:
    params = node.expressions
    ok = node.this in _CAST_TYPES and (
        len(params) == 2 if node.this == exp.DataType.Type.DECIMAL else not params)
    if not ok:
        raise ExpressionError(f"CAST to `{node.sql()}` is not allowed; cast to one of "
                              f"{', '.join(_CAST_TYPES.values())} (a string column needs no cast: "
                              "compare it with a '...' literal)")


def _function_name(node: exp.Expression) -> str:
    if isinstance(node, exp.Anonymous):
        return f"`{node.name}`"
    if isinstance(node, exp.Func):
        return f"`{node.sql_name().lower()}`"
    return f"`{node.key.upper()}`"


def _unlisted_message(node: exp.Expression) -> str:
    why = ("an expression rule computes only over the row's columns, with comparisons, "
           "arithmetic, AND/OR/NOT, IS [NOT] NULL, IN, BETWEEN, LIKE/ILIKE, CASE, || and the "
           f"functions {', '.join(sorted(ALLOWED_FUNCTIONS))} (docs/quality-rules.md)")
    if not isinstance(node, exp.Func):
        return f"expr uses `{node.sql(comments=False)}` ({node.key.upper()}), which is not allowed: {why}"
    name = (node.name if isinstance(node, exp.Anonymous) else node.sql_name()).lower()
    if name in _INSTEAD:
        hint = f"; write {_INSTEAD[name]} instead"
    else:
        close = difflib.get_close_matches(name, list(ALLOWED_FUNCTIONS) + list(_ALIASES), n=2, cutoff=0.7)
        hint = ("; did you mean " + " or ".join(f"`{c}`" for c in close) + "?") if close else ""
    return f"expr calls the function `{name}`, which is not allowed: {why}{hint}"


def is_qualified(node: exp.Expression) -> bool:
    if isinstance(node, exp.Dot):
        return True
    return any(node.args.get(part) for part in ("table", "db", "catalog"))
