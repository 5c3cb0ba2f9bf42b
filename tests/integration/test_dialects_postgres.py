"""The same specs compile to the same dbt artifacts on PostgreSQL and DuckDB, with the guarded cast
(pg_input_is_valid) in exactly the artifacts where DuckDB writes its NULL-on-failure cast
(TRY_CAST, and try_strptime for an explicit format), and never around a literal."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from .corpus_checks import CATALOGUE
from .harness import DuckProject, PgProject

pytestmark = pytest.mark.postgres

DUCK_NULL_ON_FAILURE = re.compile(r"\btry_(?:cast|strptime)\s*\(", re.IGNORECASE)
DUCK_TIMESTAMP_FAST_PATH = re.compile(r"\bregexp_full_match\s*\(", re.IGNORECASE)
PG_GUARD = re.compile(r"\bpg_input_is_valid\s*\(", re.IGNORECASE)
# the constant-folding trap: Postgres folds CAST('literal' AS T) even in a CASE branch that never runs
GUARDED_LITERAL = re.compile(r"pg_input_is_valid\s*\(\(*\s*'", re.IGNORECASE)


def compiled(project) -> dict[str, str]:
    """Every compiled artifact (models and data tests) of the project: relative path -> SQL."""
    root = project.dir / "target" / "compiled"
    return {str(p.relative_to(root)): p.read_text() for p in sorted(root.rglob("*.sql"))}


@pytest.mark.parametrize("specs", [None, CATALOGUE / "specs"], ids=["shop", "catalogue"])
def test_postgres_emits_the_guard_exactly_where_duckdb_has_try_cast(tmp_path: Path, pg_server, specs, record_property):
    duck = DuckProject(tmp_path / "duckdb", specs=specs)
    pg = PgProject(tmp_path / "postgres", pg_server, specs=specs)
    for project in (duck, pg):
        assert project.compile() == 0
        project.dbt("compile")
    d, g = compiled(duck), compiled(pg)
    assert d and set(d) == set(g), "the same artifacts on both engines"

    # DuckDB's text-to-timestamp cast (bloomery.text_to_timestamp) is one coercion point written as
    # two TRY_CASTs: a fast path for the common spelling, guarded by regexp_full_match, then the
    # general form; PostgreSQL guards the same point once
    duck_counts = {name: len(DUCK_NULL_ON_FAILURE.findall(sql)) - len(DUCK_TIMESTAMP_FAST_PATH.findall(sql))
                   for name, sql in d.items()}
    pg_counts = {name: len(PG_GUARD.findall(sql)) for name, sql in g.items()}
    with_try = {name for name, n in duck_counts.items() if n}
    with_guard = {name for name, n in pg_counts.items() if n}
    assert with_try, "the corpus has coercion points"
    assert with_guard == with_try
    for name, sql in g.items():
        assert not DUCK_NULL_ON_FAILURE.search(sql), name
        assert not GUARDED_LITERAL.search(sql), f"{name}: guard around a literal"
        # the guard repeats its operand (test, then cast), so a nested cast is counted again inside it
        assert pg_counts[name] >= duck_counts[name], name
    record_property("artifacts", len(d))
    record_property("artifacts_with_null_on_failure_cast", len(with_try))
    print(f"{len(d)} artifacts, {len(with_try)} with TRY_CAST on DuckDB and the guard on Postgres; "
          f"occurrences duckdb={sum(duck_counts.values())} postgres={sum(pg_counts.values())}")
