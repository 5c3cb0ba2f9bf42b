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

from bloomery.errors import BloomeryError
from bloomery.guardrails.expression import (
    CheckedExpression,
    ExpressionError,
    check_expression,
    column_token,
)

KNOWN = ["discount", "unit_price", "quantity", "status", "qty", "name", "a", "b", "note",
         "_ingested_at", "Amount"]


def refused(expr: str, columns: list[str]) -> ExpressionError:
    """The error `check_expression` raises for `expr` over `columns` (it must raise one)."""
    with pytest.raises(ExpressionError) as info:
        check_expression(expr, columns)
    return info.value


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
    assert (checked.template, checked.columns) == (template, columns)
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


def test_the_expression_is_carried_in_parts_text_never_holding_a_name():
    """Issue 37: the macro substituted placeholders one after another, so a later one landed
    inside an earlier quoted name. The parts are SQL text and column numbers: nothing to search."""
    checked = check_expression("a > b AND a < 3", KNOWN)
    assert checked.parts == (0, " > ", 1, " AND ", 0, " < 3")
    assert checked.columns == ("a", "b")


def test_the_placeholder_is_refused_in_any_case():
    """Issue 37: the guard was case-sensitive while the column lookup is not, so
    `ID__BLOOMERY_COL_1__X` passed it and named the field `id__bloomery_col_1__x`."""
    for expr in ("ID__BLOOMERY_COL_1__X > 0", "a = '__Bloomery_col_0__'", '"__bloomery_draft_0__" > 0'):
        with pytest.raises(ExpressionError, match="reserves"):
            check_expression(expr, KNOWN + ["id__bloomery_col_1__x"])


def test_a_bare_bool_column_is_a_condition_in_parts():
    """Issue 37: a bare bool column kept its quoted name in the template (the root was never
    replaced), so the macro wrote the name as the spec spelled it, not as the engine quotes it."""
    checked = check_expression("is_ok", ["is_ok"], ["is_ok"])
    assert checked.parts == (0,) and checked.columns == ("is_ok",)
    assert checked.render(['"is_ok"']) == '"is_ok"'
    assert check_expression("IS_OK", ["is_ok"], ["is_ok"]).parts == (0,)


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
    error = refused(expr, KNOWN)
    assert fragment in str(error)
    assert isinstance(error, BloomeryError)  # one error root (errors.py)


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


def assert_refused_or_safe(text: str) -> None:
    """`text` is refused (an ExpressionError, nothing else), or checked into a safe template."""
    try:
        checked = check_expression(text, KNOWN)
    except ExpressionError:
        return
    assert_safe_template(checked)


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=60))
def test_arbitrary_text_only_ever_raises_expression_error(text):
    assert_refused_or_safe(text)


_SQLISH = st.sampled_from(
    ["a", "b", "qty", "note", " ", ">", "=", "<>", "AND", "OR", "NOT", "(", ")", "'x'", "''",
     "';'", "'--'", "1", "IS", "NULL", "IN", "BETWEEN", "LIKE", ",", ";", "--", "/*", "*/",
     "coalesce", "+", "-", "*", "t.", "SELECT", "\n"]
)


@settings(max_examples=1000, deadline=None)
@given(st.lists(_SQLISH, max_size=14).map(" ".join))
def test_sql_shaped_text_is_refused_or_safe(text):
    assert_refused_or_safe(text)


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


# -- the allow-list (issue 18: specs are data, never code) ------------------------------------

from pathlib import Path  # noqa: E402

from bloomery import errors as E  # noqa: E402
from bloomery.guardrails.expression import ALLOWED_FUNCTIONS, EXTRACT_FIELDS  # noqa: E402
from spec_trees import Tree  # noqa: E402

ROW = ["a", "b", "m", "name", "d", "ts", "ds", "flag", "active"]


@pytest.mark.parametrize("expr, name", [
    ("sleep_ms(3000) IS NULL", "sleep_ms"),
    ("write_log('x') IS NULL", "write_log"),
    ("pg_terminate_backend(1) IS NULL", "pg_terminate_backend"),
    ("lo_import('/etc/hostname') > 0", "lo_import"),
    # the same call buried inside allowed constructs is found as well
    ("a > 0 OR coalesce(sleep_ms(3000), 0) > 0", "sleep_ms"),
    ("CASE WHEN a > 0 THEN pg_terminate_backend(1) ELSE 0 END = 0", "pg_terminate_backend"),
])
def test_a_function_off_the_list_is_refused_by_name(expr, name):
    message = str(refused(expr, ROW))
    assert f"the function `{name}`, which is not allowed" in message
    # the refusal says what is allowed, and where that is written down
    assert "abs, cast, ceil, coalesce" in message and "docs/quality-rules.md" in message


# Each accepted construct, as a rule would write it; every rendered template was run on DuckDB,
# PostgreSQL and Spark once by hand with the same answers (see docs/quality-rules.md).
ACCEPTED = [
    ("a = 1 AND a <> 2 AND a != 3 AND a < 4 AND a <= 4 AND a > 0 AND a >= 1", None),
    ("a + b - 1 > a * 2 / 4", "__bloomery_col_0__ + __bloomery_col_1__ - 1 > __bloomery_col_0__ * 2 / 4"),
    ("-a < 0", "-__bloomery_col_0__ < 0"),
    ("a % 2 = 0", "MOD(__bloomery_col_0__, 2) = 0"),  # BigQuery has no %, every engine has MOD
    ("mod(a, 2) = 0", "MOD(__bloomery_col_0__, 2) = 0"),
    ("(a % 3) % 2 = 0", "MOD((MOD(__bloomery_col_0__, 3)), 2) = 0"),
    ("a IS NULL OR a IS NOT NULL", None),
    ("active IS TRUE OR active IS NOT FALSE", None),
    ("a IS DISTINCT FROM b OR a IS NOT DISTINCT FROM b", None),
    ("a IN (1, 2) AND a NOT IN (3)", None),
    ("a BETWEEN 1 AND 2 OR a NOT BETWEEN 3 AND 4", None),
    ("name LIKE 'x%' OR name NOT LIKE '%y' OR name ILIKE 'Z%'", None),
    ("CASE WHEN a > 0 THEN 'p' WHEN a < 0 THEN 'n' ELSE 'z' END <> 'q'", None),
    ("CASE a WHEN 1 THEN 1 ELSE 0 END = 1", None),
    ("CAST(a AS INT) > 0 AND CAST(a AS BIGINT) > 0 AND CAST(a AS DECIMAL(10, 2)) > 0", None),
    ("CAST(ds AS DATE) <= current_date AND CAST(ds AS TIMESTAMP) <= current_timestamp", None),
    ("CAST(flag AS BOOLEAN) = TRUE OR a::int > 0", None),
    ("DATE '2020-01-01' <= d", "CAST('2020-01-01' AS DATE) <= __bloomery_col_0__"),
    ("coalesce(a, b, 0) >= 0 AND nullif(a, 0) IS NOT NULL", None),
    ("ifnull(a, 0) >= 0", "COALESCE(__bloomery_col_0__, 0) >= 0"),
    ("length(name) > 0 AND char_length(name) > 0", "LENGTH(__bloomery_col_0__) > 0 AND LENGTH(__bloomery_col_0__) > 0"),
    ("lower(name) <> upper(name)", None),
    ("trim(name) <> '' AND ltrim(name) <> '' AND rtrim(name) <> ''", None),
    ("substring(name, 1, 2) = 'ab' OR substr(name, 2) = 'b'", None),
    ("replace(name, '-', '') <> ''", None),
    ("name || '!' <> name", "__bloomery_col_0__ || '!' <> __bloomery_col_0__"),
    ("abs(a) < 10 AND round(m, 2) > 0 AND round(m) > 0 AND floor(m) >= 0 AND ceil(m) > 0", None),
    ("extract(year from d) >= 2020 AND extract(month from ts) BETWEEN 1 AND 12", None),
    ("extract(quarter from d) >= 1 AND extract(day from d) >= 1 AND extract(hour from ts) >= 0 "
     "AND extract(minute from ts) >= 0", None),
    ("d <= current_date AND ts <= current_timestamp", None),
]


@pytest.mark.parametrize("expr, template", ACCEPTED)
def test_allowed_constructs_are_accepted(expr, template):
    checked = check_expression(expr, ROW, ["active"])
    if template is not None:
        assert checked.template == template
    assert_safe_template(checked)
    # what lands in the SQL calls no function but the listed ones (MOD: the spelling of %)
    tree = sqlglot.parse_one(checked.render(['"x"'] * len(checked.columns)))
    assert [f.name for f in tree.find_all(exp.Anonymous)] in ([], ["MOD"], ["MOD", "MOD"])


@pytest.mark.parametrize("written, suggested", [
    ("lenght(name) > 0", "length"),
    ("lowr(name) = 'x'", "lower"),
    ("substrng(name, 1, 2) = 'ab'", "substring"),
    ("coalesec(a, 0) > 0", "coalesce"),
    ("nulif(a, 0) IS NULL", "nullif"),
])
def test_an_unknown_function_close_to_an_allowed_one_gets_did_you_mean(written, suggested):
    with pytest.raises(ExpressionError, match=rf"did you mean `{suggested}`"):
        check_expression(written, ROW)


def test_no_did_you_mean_without_a_close_name():
    assert "did you mean" not in str(refused("pg_terminate_backend(1) IS NULL", ROW))


@pytest.mark.parametrize("expr, fragment", [
    # functions real rules reach for, without a spelling that means the same on every engine
    ("concat(name, 'x') = 'ax'", "write `a || b` instead"),
    ("starts_with(name, 'x')", "LIKE 'prefix%'"),
    ("greatest(a, b) > 0", "CASE"),
    ("if(a > 0, 1, 0) = 1", "CASE WHEN"),
    ("now() > ts", "`current_timestamp`"),
    ("year(d) = 2020", "EXTRACT(YEAR FROM col)"),
    ("date_part('year', d) = 2020", "EXTRACT(YEAR FROM col)"),
    ("try_cast(a AS INT) > 0", "CAST(x AS type)"),
    ("date_trunc('month', d) = d", "function `date_trunc`"),
    ("datediff(day, d, ts) > 0", "function `datediff`"),
    ("regexp_like(name, 'x')", "function `regexp_like`"),
    # allowed functions in a form some engine reads differently
    ("trim(name, 'x') <> ''", "write `trim(x)`, `ltrim(x)` or `rtrim(x)`"),
    ("trim(both 'x' from name) <> ''", "form of `trim`"),
    ("floor(m, 2) > 0", "write `floor(x)`"),
    ("replace(name, '-') = 'ab'", "write `replace(x, from, to)`"),
    ("current_timestamp(3) > ts", "write `current_timestamp`"),
    ("extract(dow from d) = 1", "EXTRACT takes one of YEAR"),
    ("extract('year' from d) = 2020", "EXTRACT takes one of YEAR"),
    ("CAST(a AS VARCHAR) = 'x'", "CAST to `VARCHAR` is not allowed"),
    ("CAST(a AS TEXT) = 'x'", "CAST to `TEXT` is not allowed"),
    ("CAST(a AS NUMERIC) > 0", "CAST to `DECIMAL` is not allowed"),
    ("CAST(a AS DOUBLE) > 0", "CAST to `DOUBLE` is not allowed"),
    ("a IS 5", "IS compares with NULL, TRUE or FALSE"),
    # operators off the list
    ("d + INTERVAL '1' DAY > ts", "(INTERVAL), which is not allowed"),
    ("name LIKE 'x!%' ESCAPE '!'", "(ESCAPE), which is not allowed"),
    ("a & 1 = 0", "(BITWISEAND), which is not allowed"),
    ("a[1] = 0", "(BRACKET), which is not allowed"),
    ("(a, b) = (1, 2)", "(TUPLE), which is not allowed"),
    ("a > 1 AS x", "(ALIAS), which is not allowed"),
    ("a = ANY(ARRAY[1])", "which is not allowed"),
    ("name SIMILAR TO 'x'", "which is not allowed"),
])
def test_constructs_off_the_list_are_refused(expr, fragment):
    assert fragment in str(refused(expr, ROW))


SAMPLE_CALLS = {
    "abs": "abs(a) > 0", "cast": "CAST(a AS INT) > 0", "ceil": "ceil(m) > 0",
    "coalesce": "coalesce(a, 0) > 0", "current_date": "d <= current_date",
    "current_timestamp": "ts <= current_timestamp", "extract": "extract(year from d) > 0",
    "floor": "floor(m) > 0", "length": "length(name) > 0", "lower": "lower(name) = 'a'",
    "ltrim": "ltrim(name) = 'a'", "mod": "mod(a, 2) = 0", "nullif": "nullif(a, 0) > 0",
    "replace": "replace(name, 'a', 'b') = 'b'", "round": "round(m, 1) > 0",
    "rtrim": "rtrim(name) = 'a'", "substring": "substring(name, 1, 1) = 'a'",
    "trim": "trim(name) = 'a'", "upper": "upper(name) = 'A'",
}


@pytest.mark.parametrize("name", sorted(ALLOWED_FUNCTIONS))
def test_every_listed_function_is_accepted_and_parses_to_its_class(name):
    call = SAMPLE_CALLS[name]
    assert any(isinstance(n, ALLOWED_FUNCTIONS[name]) for n in sqlglot.parse_one(call).walk())
    assert_safe_template(check_expression(call, ROW))


def test_the_documented_list_is_the_list():
    text = (Path(__file__).resolve().parents[3] / "docs" / "quality-rules.md").read_text(encoding="utf-8")
    section = text[text.index("## Entity rules"):text.index("`referential` judges")]
    documented = set(re.findall(r"`([a-z_]+)`", section.split("Functions:", 1)[1].split("\n\n", 1)[0]))
    assert documented >= set(ALLOWED_FUNCTIONS)
    assert documented - set(ALLOWED_FUNCTIONS) <= {"substr", "char_length", "character_length",
                                                   "ceiling", "ifnull", "nvl"}
    for field in EXTRACT_FIELDS:
        assert field in section


def test_an_unlisted_function_is_a_located_spec_error(tmp_path):
    tree = Tree.copy("shop", tmp_path)
    tree.edit("entity_model.yaml", 'expr: "discount <= unit_price * quantity"', 'expr: "sleep_ms(3000) IS NULL"')
    (error,) = tree.errors()
    assert isinstance(error, E.GuardrailError)
    assert (error.location.file, error.location.line, error.location.path) == (
        tree.display("entity_model.yaml"), tree.line_of("entity_model.yaml", "sleep_ms"),
        "entities.order_item.quality[0].expr")
    assert "`sleep_ms`" in error.message and error.hint


_NAMES = ["sleep_ms", "pg_sleep", "lo_import", "write_log", "now", "md5", "concat", "greatest",
          "date_trunc", "year", "lower", "upper", "length", "trim", "abs", "round", "coalesce",
          "nullif", "replace", "substring", "mod"]
_ARG = st.sampled_from(["a", "b", "name", "1", "'x'", "NULL"])


@st.composite
def _calls(draw, depth=2):
    """`fn(args)`, possibly nested: a shape most random texts never reach."""
    args = draw(st.lists(_calls(depth - 1) if depth and draw(st.booleans()) else _ARG,
                         min_size=1, max_size=3))
    return f"{draw(st.sampled_from(_NAMES))}({', '.join(args)})"


_CONDITION = st.builds(lambda left, op, right: f"{left} {op} {right}", _calls(),
                       st.sampled_from(["=", ">", "<>", "IS", "IS NOT"]),
                       st.sampled_from(["0", "'x'", "NULL", "a"]))


@settings(max_examples=500, deadline=None)
@given(st.lists(_CONDITION, min_size=1, max_size=3).map(" OR ".join))
def test_whatever_is_accepted_calls_only_listed_functions(text):
    try:
        checked = check_expression(text, ROW)
    except ExpressionError:  # refused: by the list, or as a wrong call of a known function
        return
    assert_safe_template(checked)
    tree = sqlglot.parse_one(checked.render(['"x"'] * len(checked.columns)))
    allowed = set(ALLOWED_FUNCTIONS.values())
    for node in tree.walk():
        if isinstance(node, exp.Anonymous):
            assert node.name == "MOD"
        elif isinstance(node, exp.Func) and not isinstance(node, exp.Binary):
            assert type(node) in allowed | {exp.Case, exp.If}, node.sql()


def test_text_the_sql_parser_itself_trips_on_is_refused_as_unparseable():
    """sqlglot 30 raises AttributeError (not a ParseError) on this; found by the fuzz above."""
    with pytest.raises(ExpressionError, match="cannot parse expr"):
        check_expression("INTERVAL -", ROW)
