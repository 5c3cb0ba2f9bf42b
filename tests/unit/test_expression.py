"""The `expression` entity rule (spec reference 3.5)."""
from __future__ import annotations

import re

import pytest
import sqlglot
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlglot import exp
from sqlglot.errors import ErrorLevel
from sqlglot.tokens import TokenType

from bloomery.rules.expression import (
    CheckedExpression,
    ExpressionError,
    check_expression,
    column_token,
)

KNOWN = ["discount", "unit_price", "quantity", "status", "qty", "name", "a", "b", "note",
         "_ingested_at", "Amount"]


def assert_safe_template(checked: CheckedExpression) -> None:
    """With every token swapped for a quoted identifier, the template is still exactly one
    expression: no statement separator and no comment anywhere outside string literals."""
    assert not re.search(r"__bloomery_(?!col_\d+__)", checked.template)
    assert sorted({int(i) for i in re.findall(r"__bloomery_col_(\d+)__", checked.template)}) == \
        list(range(len(checked.columns)))
    sql = checked.render(['"x"'] * len(checked.columns))
    tokens = sqlglot.tokenize(sql)
    assert all(t.token_type != TokenType.SEMICOLON for t in tokens)
    assert all(not t.comments for t in tokens)
    statements = sqlglot.parse(sql, error_level=ErrorLevel.RAISE)
    assert len(statements) == 1 and statements[0] is not None
    outside = re.sub(r"'(?:[^']|'')*'", "''", sql)
    for marker in (";", "--", "/*"):
        assert marker not in outside


VALID = [
    ("discount <= unit_price * quantity",
     "__bloomery_col_0__ <= __bloomery_col_1__ * __bloomery_col_2__",
     ("discount", "unit_price", "quantity")),
    ("status IN ('a', 'b') OR qty > 0",
     "__bloomery_col_0__ IN ('a', 'b') OR __bloomery_col_1__ > 0", ("status", "qty")),
    ("coalesce(discount, 0) >= 0", "COALESCE(__bloomery_col_0__, 0) >= 0", ("discount",)),
    ("name LIKE 'A%'", "__bloomery_col_0__ LIKE 'A%'", ("name",)),
    ("a BETWEEN 1 AND 2", "__bloomery_col_0__ BETWEEN 1 AND 2", ("a",)),
    ("NOT (a IS NULL)", "NOT (__bloomery_col_0__ IS NULL)", ("a",)),
    ("a IS NOT NULL AND b IS NULL",
     "NOT __bloomery_col_0__ IS NULL AND __bloomery_col_1__ IS NULL", ("a", "b")),
    ("name ILIKE 'x%' OR name NOT LIKE '%y'",
     "__bloomery_col_0__ ILIKE 'x%' OR __bloomery_col_0__ NOT LIKE '%y'", ("name",)),
    ("(qty > 0)", "(__bloomery_col_0__ > 0)", ("qty",)),
    ("a IS DISTINCT FROM b", "__bloomery_col_0__ IS DISTINCT FROM __bloomery_col_1__", ("a", "b")),
    ("TRUE", "TRUE", ()),
    ("_ingested_at IS NOT NULL", "NOT __bloomery_col_0__ IS NULL", ("_ingested_at",)),
    ("cast(qty AS INT) > 0 -- trailing comment", "CAST(__bloomery_col_0__ AS INT) > 0", ("qty",)),
    ("/* lead */ qty > 0", "__bloomery_col_0__ > 0", ("qty",)),
]


@pytest.mark.parametrize("expr,template,columns", VALID)
def test_valid(expr, template, columns):
    checked = check_expression(expr, KNOWN)
    assert checked == CheckedExpression(template=template, columns=columns)
    assert_safe_template(checked)


def test_columns_are_listed_once_in_first_appearance_order():
    checked = check_expression("b > a AND a < discount OR b = 0", KNOWN)
    assert checked.columns == ("b", "a", "discount")
    assert checked.template == (
        "__bloomery_col_0__ > __bloomery_col_1__ AND __bloomery_col_1__ < __bloomery_col_2__ "
        "OR __bloomery_col_0__ = 0"
    )


def test_exact_name_wins_then_a_unique_case_insensitive_match():
    assert check_expression("amount > 0", KNOWN).columns == ("Amount",)
    assert check_expression('"Amount" > 0', KNOWN).columns == ("Amount",)
    assert check_expression("QTY > 0", KNOWN).columns == ("qty",)
    assert check_expression("Qty > 0", ["Qty", "QTY"]).columns == ("Qty",)
    with pytest.raises(ExpressionError, match='ignoring case.*double quotes'):
        check_expression("qty > 0", ["Qty", "QTY"])


def test_render_substitutes_identifiers_in_one_pass():
    checked = check_expression("a > b", KNOWN)
    # An identifier that looks like a token must not be rewritten by a later substitution.
    assert checked.render(['"__bloomery_col_1__"', '"b"']) == '"__bloomery_col_1__" > "b"'
    with pytest.raises(ValueError):
        checked.render(['"a"'])
    assert column_token(3) == "__bloomery_col_3__"


def test_string_literal_with_quotes_semicolons_and_comment_markers_stays_a_literal():
    checked = check_expression("note <> 'x''; drop table t; --'", KNOWN)
    assert checked.columns == ("note",)
    assert checked.template == "__bloomery_col_0__ <> 'x''; drop table t; --'"
    assert_safe_template(checked)
    tree = sqlglot.parse_one(checked.render(['"note"']))
    assert isinstance(tree, exp.NEQ)
    assert tree.expression.is_string
    assert tree.expression.this == "x'; drop table t; --"


def test_comment_markers_inside_a_literal_are_kept_verbatim():
    checked = check_expression("note = '/* not a comment */ -- nor this'", KNOWN)
    assert "'/* not a comment */ -- nor this'" in checked.template
    assert_safe_template(checked)


INVALID = [
    ("a > 0; drop table x", "more than one statement"),
    ("''; drop table x; --", "more than one statement"),
    ("a > 0;", "ends with ';'"),
    ("a IN (SELECT 1)", "subquery"),
    ("EXISTS (SELECT 1 FROM t)", "subquery"),
    ("a > (SELECT max(b) FROM t)", "subquery"),
    ("a = ANY (SELECT 1)", "subquery"),
    ("a > 1 UNION SELECT 1", "subquery"),
    ("t.a > 1", "qualified column"),
    ("s.t.a > 1", "qualified column"),
    ("a + 1", "not a condition"),
    ("a", "not a condition"),
    ("NOT a", "not a condition"),
    ("a > 1 AND b", "`b` is not a condition"),
    ("coalesce(a, 0)", "not a condition"),
    ("", "empty"),
    ("   \n\t", "empty"),
    ("-- just a comment", "no SQL"),
    ("a >", "cannot parse"),
    ("a > (", "cannot parse"),
    ("a > 'unterminated", "cannot"),
    ("count(*) > 1", "across rows"),
    ("* > 1", "`*`"),
    ("coalesce(*) > 1", "`*`"),
    ("sum(qty) > 1", "across rows"),
    ("row_number() OVER () > 1", "across rows"),
    ("a > ?", "parameter"),
    ("a > @x", "parameter"),
    ("a > @@x", "parameter"),
    ("a > :name", "parameter"),
    ("note = '{{ var(\"x\") }}'", "Jinja"),
    ("note = '{% if %}'", "Jinja"),
    ("note = '__bloomery_col_0__'", "reserves"),
    ("note = 'a\\' OR note = ' ; drop table x; -- '", "backslash"),
    ("note = N'x'", "engine-specific literal"),
]


@pytest.mark.parametrize("expr,fragment", INVALID)
def test_invalid(expr, fragment):
    with pytest.raises(ExpressionError) as info:
        check_expression(expr, KNOWN)
    assert fragment in str(info.value)
    assert isinstance(info.value, ValueError)


def test_unknown_column_message_suggests_close_matches():
    with pytest.raises(ExpressionError, match=r"unknown column `quantty`.*did you mean `quantity`"):
        check_expression("quantty > 0", KNOWN)


def test_unknown_column_without_close_match_lists_the_columns():
    with pytest.raises(ExpressionError, match=r"unknown column `zzz`.*known columns: a, b"):
        check_expression("zzz > 0", ["a", "b"])


def test_statement_nodes_are_refused_even_where_the_parser_accepts_them():
    with pytest.raises(ExpressionError):
        check_expression("DROP TABLE x", KNOWN)
    with pytest.raises(ExpressionError):
        check_expression("DELETE FROM x WHERE a > 0", KNOWN)


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=60))
def test_arbitrary_text_only_ever_raises_expression_error(text):
    try:
        checked = check_expression(text, KNOWN)
    except ExpressionError:
        return
    assert_safe_template(checked)


_SQLISH = st.sampled_from(
    ["a", "b", "qty", "note", " ", ">", "=", "<>", "AND", "OR", "NOT", "(", ")", "'x'", "''",
     "';'", "'--'", "1", "IS", "NULL", "IN", "BETWEEN", "LIKE", ",", ";", "--", "/*", "*/",
     "coalesce", "+", "-", "*", "t.", "SELECT", "\n"]
)


@settings(max_examples=1000, deadline=None)
@given(st.lists(_SQLISH, max_size=14).map(" ".join))
def test_sql_shaped_text_is_refused_or_safe(text):
    try:
        checked = check_expression(text, KNOWN)
    except ExpressionError:
        return
    assert_safe_template(checked)


@pytest.mark.parametrize("expr, template", [
    ("NOT is_deleted", "NOT __bloomery_col_0__"),
    ("a > 0 AND (is_deleted OR b < 1)", "__bloomery_col_0__ > 0 AND (__bloomery_col_1__ OR __bloomery_col_2__ < 1)"),
])
def test_a_bool_column_is_a_condition(expr, template):
    assert check_expression(expr, KNOWN + ["is_deleted"], ["is_deleted"]).template == template


def test_a_column_not_declared_bool_is_still_a_value():
    with pytest.raises(ExpressionError, match="is not a condition"):
        check_expression("NOT a", KNOWN + ["is_deleted"], ["is_deleted"])


def test_the_clock_is_written_as_standard_sql():
    """`CURRENT_TIMESTAMP()` (sqlglot's default spelling) is no function on DuckDB."""
    checked = check_expression("a <= current_timestamp AND b <= current_date", KNOWN)
    assert checked.template == "__bloomery_col_0__ <= CURRENT_TIMESTAMP AND __bloomery_col_1__ <= CURRENT_DATE"
