"""Trino, Snowflake, BigQuery, Redshift and Databricks: the corpora rendered by dbt with each real
adapter package (offline.py), every statement parsed by sqlglot in that dialect.

Runs in its own environment (requirements-dialects.txt: the five adapters do not install beside
dbt-spark 1.11): `make test-dialects`.
"""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import sqlglot

from bloomery.cli import main as bloomery_main
from bloomery.resolve import check_project
from bloomery.emit.dialects import capabilities

from .offline import DIALECTS, ROOT, by_dialect, in_group, render

pytestmark = pytest.mark.dialects

# the shop is rendered with its entities `incremental_by_key` (the entity's pre-hook, the ledger's
# batch), the other corpora as declared (undeclared: `full`, a table rebuilt from all of bronze)
INCREMENTAL = {"shop"}
CORPORA = {"shop": ROOT / "integration_tests" / "specs",
           "catalogue": ROOT / "integration_tests" / "corpus" / "catalogue" / "specs",
           "referential": ROOT / "integration_tests" / "corpus" / "referential" / "specs"}

# What each dialect's SQL must show (its own macros, or its parent's through dbt's dispatch), and
# what it must not (another engine's spelling leaking through a missing override).
MUST = {
    "trino": ["try_cast(", "regexp_like(", "cardinality(", "lower(to_hex(sha256(to_utf8(", "json_object(key "],
    "snowflake": ["try_cast(cast(", "regexp_like(", "array_size(", "sha2(", "object_construct_keep_null("],
    "bigquery": ["safe_cast(", "regexp_contains(", "array_length(", "to_hex(sha256(", "json_object("],
    # redshift__ first, then postgres__ (its parent): `~` is the Postgres port's regex
    "redshift": ["try_cast(", " ~ ", "strpos(',' ||", "sha2(", "json_serialize(object("],
    # databricks__ first, then spark__ (its parent): rlike, size(), to_json(named_struct(...))
    "databricks": ["try_cast(", " rlike ", "size(", "sha2(", "to_json(named_struct("],
}
MUST_NOT = {
    "trino": ["list_contains(", "len(", "pg_input_is_valid", "rlike"],
    "snowflake": ["list_contains(", "len(", "pg_input_is_valid", "text[]"],
    "bigquery": ["list_contains(", "pg_input_is_valid", "try_cast("],
    # flags are a comma string there: the PostgreSQL port's unnest of them must not leak in
    "redshift": ["pg_input_is_valid", "text[]", "array_cat(", "json_build_object(", "convert_to(", "unnest("],
    "databricks": ["list_contains(", "pg_input_is_valid", "__bloomery_rewrite", "insert overwrite"],
}


def _specs_for(dialect: str, corpus: str, tmp: Path) -> Path:
    """The corpus as this dialect can take it: what `compile --target-dialect` refuses is checked
    to be refused, then left out (a `normalize` rule where there is no normalization)."""
    specs = tmp / "specs"
    shutil.copytree(CORPORA[corpus], specs)
    if corpus in INCREMENTAL:
        model = specs / "entity_model.yaml"
        text, n = re.subn(r"^(    grain: .*\n)", r"\1    materialization: incremental_by_key\n", model.read_text(), flags=re.M)
        assert n, corpus
        model.write_text(text)
    refused = bloomery_main(["compile", "--specs", str(specs), "--out", str(tmp / "checked"),
                             "--target-dialect", dialect]) != 0
    has_normalize = any(r.kind == "normalize" for e in check_project(specs).entities.values() for r in e.rules)
    assert refused == (has_normalize and not capabilities(dialect)["nfc_normalize"]), (dialect, corpus)
    if refused:
        for path in specs.glob("*.yaml"):
            path.write_text("".join(line for line in path.read_text().splitlines(keepends=True)
                                    if "rule: normalize" not in line))
        assert bloomery_main(["compile", "--specs", str(specs), "--out", str(tmp / "checked"),
                              "--target-dialect", dialect]) == 0
    return specs


_rendered: dict = {}


@pytest.fixture
def rendered(tmp_path_factory):
    def get(dialect, corpus):
        if (dialect, corpus) not in _rendered:
            tmp = tmp_path_factory.mktemp(f"{dialect}_{corpus}")
            _rendered[dialect, corpus] = render(dialect, _specs_for(dialect, corpus, tmp), tmp)
        return _rendered[dialect, corpus]
    return get


@pytest.mark.parametrize("dialect,corpus", [
    in_group(d, c, group=f"{d}-{c}" if c == "referential" else d) for d in DIALECTS for c in CORPORA])
def test_every_statement_parses_in_its_dialect(rendered, dialect, corpus, record_property):
    out = rendered(dialect, corpus)
    failures, statements = [], 0
    for name, sql in out.items():
        if not sql.strip():
            continue
        try:
            trees = [t for t in sqlglot.parse(sql, read=dialect) if t is not None]
        except Exception as exc:  # sqlglot's ParseError / TokenError
            failures.append(f"{name}: {str(exc)[:400]}")
            continue
        assert trees, name
        statements += len(trees)
    states = {name.split("/")[0] for name in out}
    assert states == {"empty", "built"}
    assert any("bloomery_hooks" in n for n in out), "the hooks were rendered"
    assert not failures, "\n".join(failures)
    record_property("artifacts", len(out))
    record_property("statements", statements)
    print(f"{dialect}/{corpus}: {len(out)} artifacts, {statements} statements parsed")


@by_dialect
def test_dispatch_picks_the_dialect_s_own_sql(rendered, dialect):
    sql = "\n".join(rendered(dialect, "shop").values()) + "\n".join(rendered(dialect, "catalogue").values())
    lowered = sql.lower()
    for marker in MUST[dialect]:
        assert marker in lowered, f"{dialect}: no {marker!r}"
    for marker in MUST_NOT[dialect]:
        assert marker not in lowered, f"{dialect}: {marker!r} leaked in"


# what each adapter's incremental materialization accepts (its validate macro)
STRATEGIES = {
    "trino": {"append", "delete+insert", "merge", "microbatch"},
    "snowflake": {"append", "delete+insert", "merge", "insert_overwrite", "microbatch"},
    "bigquery": {"merge", "insert_overwrite", "microbatch"},
    "redshift": {"append", "delete+insert", "merge", "microbatch"},
    "databricks": {"append", "delete+insert", "merge", "insert_overwrite", "replace_where", "microbatch"},
}


@by_dialect
def test_every_incremental_model_asks_for_a_strategy_the_adapter_has(rendered, dialect):
    strategies = {**rendered(dialect, "shop").strategies, **rendered(dialect, "catalogue").strategies}
    assert strategies, "the corpora have incremental models"
    wrong = {model: s for model, s in strategies.items() if s not in STRATEGIES[dialect]}
    assert not wrong, f"{dialect} has no such incremental strategy: {wrong}"


@by_dialect
def test_replay_and_purge_were_rendered(rendered, dialect):
    statements = [sql.lower() for name, sql in rendered(dialect, "shop").items() if "/statement_" in name]
    assert any("bloomery_replay_outcome" in s for s in statements), dialect
    assert any("last_seen" in s and "resolved_at" in s for s in statements), dialect
