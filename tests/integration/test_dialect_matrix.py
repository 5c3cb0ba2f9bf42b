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
