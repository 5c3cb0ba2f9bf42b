"""The dialect matrix (docs/dialects.md), measured: each case renders one package macro on each
engine, runs it over a bronze-like text column, and asserts that engine's own result. A case
whose two expectations differ is a divergence the product accepts and documents; one that
agrees pins a behaviour the Postgres port had to work for (the clock-word exclusion, the
strptime-compatible parse, split_part at index 0, ...).
"""
from __future__ import annotations

import pytest

from .harness import DuckProject, PgProject, render

INT = "bloomery.safe_cast('x', {'name': 'int'})"
DEC = "bloomery.safe_cast('x', {'name': 'decimal', 'precision': 12, 'scale': 4})"
BOOL = "bloomery.safe_cast('x', {'name': 'bool'})"
DATE = "bloomery.safe_cast('x', {'name': 'date'})"
TS = "bloomery.safe_cast('x', {'name': 'timestamp'})"
PARSE_DATE = "bloomery.parse_format('x', '%d/%m/%Y', {'name': 'date'}, true)"
PARSE_TS = "bloomery.parse_format('x', '%Y-%m-%d %H:%M:%S', {'name': 'timestamp'}, true)"
EXTRACT = "bloomery.regex_extract('x', '^([A-Z]+)', 1)"
SPLIT = "bloomery.split_part('x', '-', 2)"
SPLIT0 = "bloomery.split_part('x', '-', 0)"
DOT = "bloomery.regex_match('x', '^a.b$')"
WORD = "bloomery.regex_match('x', '^\\\\w+$')"
SPACE = "bloomery.regex_match('x', '^\\\\s$')"
# casts from a typed value, as the compiler lowers `to_int` after `to_decimal`, or a widening to variant
DEC_TO_INT = ("bloomery.transform_step(bloomery.safe_cast('x', {'name': 'decimal', 'precision': 5, 'scale': 2}), "
              "{'op': 'cast', 'type': {'name': 'int'}, 'from_type': 'decimal'}, true)")
DEC_TO_INT_ROUNDED = DEC_TO_INT.replace("'from_type': 'decimal'", "'from_type': 'decimal', 'round': 'half_away_from_zero'")
TO_INT = "bloomery.transform_step('x', {'op': 'cast', 'type': {'name': 'int'}}, true)"
TO_INT_ROUNDED = "bloomery.transform_step('x', {'op': 'cast', 'type': {'name': 'int'}, 'round': 'half_away_from_zero'}, true)"
TO_DEC = "bloomery.transform_step('x', {'op': 'cast', 'type': {'name': 'decimal', 'precision': 8, 'scale': 1}}, true)"
TO_DEC_ROUNDED = TO_DEC.replace("'scale': 1}}", "'scale': 1}, 'round': 'half_away_from_zero'}")
DATE_TO_VARIANT = ("bloomery.transform_step(bloomery.safe_cast('x', {'name': 'date'}), "
                   "{'op': 'cast', 'type': {'name': 'variant'}, 'from_type': 'date', 'final': true}, true)")
BOOL_TO_INT = ("bloomery.transform_step(bloomery.safe_cast('x', {'name': 'bool'}), "
               "{'op': 'cast', 'type': {'name': 'int'}, 'via_int': true, 'from_type': 'bool'}, true)")
ROUND_INT = ("bloomery.transform_step(bloomery.safe_cast('x', {'name': 'int'}), "
             "{'op': 'round', 'digits': 2, 'type': {'name': 'int'}}, true)")

# (macro, input, DuckDB result, Postgres result); None is SQL NULL (for a cast: a coercion failure)
CASES = [
    (INT, "12", "12", "12"),
    (INT, " 12 ", "12", "12"),
    (INT, "0x1F", "31", "31"),
    (INT, "1_000", "1000", "1000"),
    (INT, "", None, None),
    (INT, "2.5", "3", None),
    (INT, "1e3", "1000", None),
    (DEC, " 12.5 ", "12.5000", "12.5000"),
    (DEC, "1e3", "1000.0000", "1000.0000"),
    (DEC, "12,5", None, None),
    (DEC, "Infinity", None, None),
    (DEC, "NaN", None, "NaN"),
    (BOOL, "yes", "true", "true"),
    (BOOL, "maybe", None, None),
    (BOOL, "on", None, "true"),
    (BOOL, " true ", None, "true"),
    (BOOL, "tr", None, "true"),
    (DATE, "2021-02-30", None, None),
    (DATE, "15/03/2021", None, None),
    (DATE, "epoch", "1970-01-01", "1970-01-01"),
    (DATE, "today", None, None),
    (DATE, "03/15/2021", None, "2021-03-15"),
    (DATE, "20210315", None, "2021-03-15"),
    # a timestamp is one ISO 8601 reader on every engine (bloomery.text_to_timestamp; the whole
    # corpus of spellings, with Spark, is test_timestamp_spellings.py)
    (TS, "2023-05-01T10:00:00+02:00", "2023-05-01 08:00:00", "2023-05-01 08:00:00"),
    (TS, "2023-05-01t10:00:00", "2023-05-01 10:00:00", "2023-05-01 10:00:00"),
    (TS, "2023-05-01 24:00:00", None, None),
    (TS, "05/16/2023 10:00", None, None),
    (TS, "epoch", None, None),
    (TS, "now", None, None),
    (TS, " Tomorrow ", None, None),
    (TS, "yesterday", None, None),
    (TS, "2023-05-01 10:00:00.1234567", "2023-05-01 10:00:00.123456", "2023-05-01 10:00:00.123456"),
    (PARSE_DATE, "15/03/2021", "2021-03-15", "2021-03-15"),
    (PARSE_DATE, " 1/3/2021 ", "2021-03-01", "2021-03-01"),
    (PARSE_DATE, "15/03/21", "0021-03-15", "0021-03-15"),
    (PARSE_DATE, "31/02/2021", None, None),
    (PARSE_DATE, "2021-03-15", None, None),
    (PARSE_DATE, "15/03/20211", None, None),
    (PARSE_DATE, "today", None, None),
    (PARSE_DATE, "15/03/0000", "0001-03-15 (BC)", None),
    (PARSE_TS, "2021-03-15 7:5:3", "2021-03-15 07:05:03", "2021-03-15 07:05:03"),
    (PARSE_TS, "2021-03-15  07:05:03", "2021-03-15 07:05:03", "2021-03-15 07:05:03"),
    (PARSE_TS, "2021-03-15 24:00:00", None, None),
    (PARSE_TS, "2021-03-15 23:59:60", None, None),
    (EXTRACT, "AB12", "AB", "AB"),
    (EXTRACT, "12AB", "", None),
    (SPLIT, "SKU", "", ""),
    (SPLIT0, "a-b", "", ""),
    (DEC_TO_INT, "2.00", "2", "2"),
    # a cast step loses no digit unasked (numeric_cast): the same on both engines
    (DEC_TO_INT, "2.50", None, None),
    (DEC_TO_INT_ROUNDED, "2.50", "3", "3"),
    (DEC_TO_INT_ROUNDED, "-2.50", "-3", "-3"),
    (TO_INT, "2.5", None, None),
    (TO_INT, "12.0", "12", "12"),
    (TO_INT, "1e3", "1000", "1000"),
    (TO_INT, " 12 ", "12", "12"),
    (TO_INT_ROUNDED, "2.5", "3", "3"),
    (TO_INT_ROUNDED, "-2.5", "-3", "-3"),
    (DEC_TO_INT, "NaN", None, None),
    # one grammar of numeric text on every engine (number_pattern): what PostgreSQL's (or DuckDB's)
    # own numeric input reads beyond it is a coercion failure on both
    (TO_INT, "0x1F", None, None),
    (TO_INT, "0o17", None, None),
    (TO_INT, "0b101", None, None),
    (TO_INT, "1_000", None, None),
    (TO_INT, "NaN", None, None),
    (TO_INT, "Infinity", None, None),
    (TO_INT, "\v12", None, None),
    (TO_INT, "\t+12\r\n", "12", "12"),
    (TO_INT, "1E+0002", "100", "100"),
    (TO_INT, "+.5e1", "5", "5"),
    (TO_INT, "5.", "5", "5"),
    (TO_INT, "1e1000", None, None),
    (TO_INT_ROUNDED, "NaN", None, None),
    (TO_INT_ROUNDED, "0x1F", None, None),
    # an exponent spelling is read in plain notation: a non-zero value below every scale loses
    # digits (was read as 0), a long mantissa is read exactly (DuckDB read the first as 0.0 and
    # refused the second, reading the mantissa at the target's width before the exponent)
    (TO_INT, "1e-400", None, None),
    (TO_INT_ROUNDED, "1e-400", "0", "0"),
    (TO_INT_ROUNDED, "-5e-1", "-1", "-1"),
    (TO_DEC, "1e-50", None, None),
    (TO_DEC, "-1e-39", None, None),
    (TO_DEC, "0.0000000001e10", "1.0", "1.0"),
    (TO_DEC, "10000000e-7", "1.0", "1.0"),
    (TO_DEC, "-0.00000000125e10", "-12.5", "-12.5"),
    (TO_DEC, "1.00000000000000000000000000000000000000001e1", None, None),
    (TO_DEC, "NaN", None, None),
    (TO_DEC, "0x1F", None, None),
    (TO_DEC_ROUNDED, "NaN", None, None),
    (TO_DEC_ROUNDED, "0.00000000125e8", "0.1", "0.1"),
    (TO_DEC_ROUNDED, "-1.00000000000000000000000000000000000000005e1", "-10.0", "-10.0"),
    (DATE_TO_VARIANT, "2021-03-15", '"2021-03-15"', '"2021-03-15"'),
    (BOOL_TO_INT, "true", "1", "1"),
    (ROUND_INT, "4", "4", "4"),
    (DOT, "a\nb", "false", "true"),
    (WORD, "\u00e9t\u00e9", "false", "true"),
    (SPACE, "\u00a0", "false", "true"),
]
ENGINES = {"duckdb": 2, "postgres": 3}


def _measure(project) -> dict[int, str | None]:
    project.write_bronze("cases", ["i", "x"], [(str(i), c[1]) for i, c in enumerate(CASES)])
    s = "bloomery.type_name({'name': 'string'})"
    selects = [f"select {i} as i, cast(({{{{ {macro} }}}}) as {{{{ {s} }}}}) as v from main.cases where i = '{i}'"
               for i, (macro, *_rest) in enumerate(CASES)]
    sql = render(project, "\nunion all\n".join(selects))
    return dict(project.query(sql))


@pytest.fixture(scope="module")
def duckdb_results(tmp_path_factory):
    return _measure(DuckProject(tmp_path_factory.mktemp("matrix_duckdb")))


@pytest.fixture(scope="module")
def postgres_results(tmp_path_factory, pg_server):
    return _measure(PgProject(tmp_path_factory.mktemp("matrix_postgres"), pg_server))


def _case_id(case):
    macro, value = case[0], case[1]
    return f"{macro.split('(')[0].split('.')[-1]}[{macro.split(',')[1].strip()[:20]}]:{value!r}"


@pytest.mark.parametrize("engine", [pytest.param("duckdb", marks=pytest.mark.duckdb),
                                    pytest.param("postgres", marks=pytest.mark.postgres)])
@pytest.mark.parametrize("index", range(len(CASES)), ids=[_case_id(c) for c in CASES])
def test_matrix(request, engine, index):
    results = request.getfixturevalue(f"{engine}_results")
    expected = CASES[index][ENGINES[engine]]
    assert results[index] == expected, f"{CASES[index][0]} on {CASES[index][1]!r}"


@pytest.mark.postgres
def test_parse_format_outside_quality_produces_or_raises(tmp_path, pg_server):
    """Outside the quality system a format parse is produce-or-raise, as a cast is."""
    project = PgProject(tmp_path, pg_server)
    project.write_bronze("cases", ["x"], [("15/03/2021",), (None,)])
    sql = render(project, "select {{ bloomery.parse_format('x', '%d/%m/%Y', {'name': 'date'}, false) }} as d "
                          "from main.cases order by 1")
    assert [str(r[0]) for r in project.query(sql)] == ["2021-03-15", "None"]
    import psycopg2
    for bad, message in (("2021-03-15", 'value 2021-03-15 does not match the format %d/%m/%Y'),
                         ("31/02/2021", "date/time field value out of range")):
        project.write_bronze("cases", ["x"], [(bad,)])
        with pytest.raises(psycopg2.Error, match=message):
            project.query(sql)


@pytest.mark.postgres
def test_parse_format_names_a_directive_it_can_not_read(tmp_path, pg_server):
    project = PgProject(tmp_path, pg_server)
    result = project.dbt("compile", "--inline", "select {{ bloomery.parse_format('x', '%d %b %Y', {'name': 'date'}, true) }}",
                         check=False)
    assert not result.success
    assert "the format '%d %b %Y' uses %b, which the postgres port does not read" in str(result.exception) + \
        (project.dir / "logs" / "dbt.log").read_text()


@pytest.mark.parametrize("engine", [pytest.param("duckdb", marks=pytest.mark.duckdb),
                                    pytest.param("postgres", marks=pytest.mark.postgres)])
def test_a_cast_step_outside_quality_produces_or_raises_on_the_one_grammar(request, tmp_path, engine):
    """Outside the quality system a numeric cast step raises on a text that is no number of the
    grammar (PostgreSQL's own cast read `0x1F` as 31 and `NaN` as NaN) and on one that loses digits
    (`1e-400` was read as 0); an exponent spelling of the grammar is read exactly."""
    project = (DuckProject(tmp_path) if engine == "duckdb"
               else PgProject(tmp_path, request.getfixturevalue("pg_server")))
    step = "{'op': 'cast', 'type': {'name': 'decimal', 'precision': 8, 'scale': 1}}"
    sql = render(project, f"select {{{{ bloomery.transform_step('x', {step}, false) }}}} as d from main.cases")
    project.write_bronze("cases", ["x"], [(" 1.25e1 ",), ("0.0000000001e10",), (None,)])
    assert sorted(str(r[0]) for r in project.query(sql)) == ["1.0", "12.5", "None"]
    for bad, message in (("0x1F", "value 0x1F is not a number"), ("NaN", "value NaN is not a number"),
                         ("1_000", "value 1_000 is not a number"), ("1e-400", "value 1e-400 loses digits")):
        project.write_bronze("cases", ["x"], [(bad,)])
        with pytest.raises(Exception, match=message):
            project.query(sql)
