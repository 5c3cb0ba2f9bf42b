"""Widening `quarantine.redact` reaches the reject rows already stored: after the ordinary
`dbt build` that `bloomery plan` prescribes, no value of a newly redacted column survives anywhere
the product writes — any table in the warehouse but bronze itself (the reject table's `raw` and
`key_values`, the entity, the mart, dbt's stored test failures, the staged tables), nor any file
dbt leaves under target/ and logs/."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from bloomery.cli import main as bloomery_main

from .harness import ENGINES, SPARK, engine_project, specs_folder

pytestmark = pytest.mark.dbt_artifacts   # no redacted value may land in target/ or logs/ as a user's run writes them

SECRET = "4111-1111-SECRET-7f3a9c"       # a card number that must not outlive its redaction
LATER = "5500-0000-SECRET-b81d2e"        # delivered after the widening: never stored at all
BRONZE = "crm__accounts"

MODEL = """\
spec_version: 1
entities:
  account:
    grain: one row per account
    materialization: incremental_by_key   # the next build judges only a-3 (see FIRST)
    key: [account_id]
    fields: {account_id: {type: string}, country: {type: string}}
    dedupe: {keep: latest_by, field: _ingested_at, tie_break: [_load_id]}
    quarantine:
      retention: 365d
      redact: ["$.notes"]
"""
MAPPING = """\
mapping_version: 1
source: crm__accounts
target: account
key: {account_id: {from: "$.id"}}
fields:
  country:
    from: "$.country"
    transform: [upper]
    quality:
      - {rule: length, min: 2, max: 2, on_fail: quarantine}
unmapped: ["$.card", "$.notes", "$._load_id", "$._ingested_at", "$._source_row_id"]
"""
COLUMNS = ["id", "country", "card", "notes", "_load_id", "_ingested_at", "_source_row_id"]
# a-1 is quarantined (country), a-2 kept: both carry the card, a JSON document. a-2 lands later,
# so the next build's batch (from the entity's newest `_ingested_at`) does not re-judge a-1: its
# reject row is left as stored, and only the redaction can clean it
FIRST = [("a-1", "FRA", '{"number": "%s", "cvc": "123"}' % SECRET, "called twice", "l1", "2024-01-10 10:00:00", "r-1"),
         ("a-2", "fr", '{"number": "%s", "cvc": "123"}' % SECRET, None, "l1", "2024-01-10 12:00:00", "r-2")]
SECOND = [("a-3", "DEU", '{"number": "%s"}' % LATER, None, "l2", "2024-01-11 10:00:00", "r-3")]


@pytest.fixture(params=ENGINES + [SPARK])   # Spark: `make test-spark`
def project(request, tmp_path):
    specs = specs_folder(tmp_path, {"model.yaml": MODEL, "accounts.yaml": MAPPING})
    return engine_project(request.param, tmp_path, request, specs)


def _tables(project) -> list[tuple[str, str]]:
    """Every table and view of the warehouse, dbt's test-failure schema included."""
    if project.engine == "spark":   # no information_schema: the project's schemas, listed
        return [(schema, r.tableName) for schema in (project.schema, project.schema + "_dbt_test__audit")
                if project.sql(f"show schemas like '{schema}'").collect()
                for r in project.sql(f"show tables in `{schema}`").collect() if not r.isTemporary]
    return [tuple(r) for r in project.query(
        "select table_schema, table_name from information_schema.tables "
        "where table_schema not in ('information_schema', 'pg_catalog') order by 1, 2")]


def _where_in_tables(project, secret: str) -> list[str]:
    """Every relation (bronze aside) holding `secret` in any column of any row, as text."""
    found = []
    for schema, table in _tables(project):
        if table == BRONZE and schema in ("main", getattr(project, "schema", "main")):
            continue
        if project.engine == "spark":
            rows = project.sql(f"select * from `{schema}`.`{table}`").collect()
        else:
            rows = project.query(f'select * from "{schema}"."{table}"')
        if any(secret in repr(row) or secret in str(row) for row in rows):
            found.append(f"{schema}.{table}")
    return found


def _where_in_files(project, secret: str) -> list[str]:
    needle = secret.encode()
    found = []
    for folder in ("target", "logs"):
        for root, _dirs, files in os.walk(project.dir / folder):
            for name in files:
                path = Path(root) / name
                if needle in path.read_bytes():
                    found.append(str(path.relative_to(project.dir)))
    return found


def test_widened_redaction_reaches_stored_rejects_on_the_next_build(project):
    project.write_bronze(BRONZE, COLUMNS, FIRST)
    assert project.compile() == 0
    project.dbt("build")
    # the scan sees what it is looking for: bronze holds the card, and so does the reject row
    assert any(table == BRONZE for _schema, table in _tables(project))
    assert any(t.endswith(".account__reject") for t in _where_in_tables(project, SECRET))
    assert "called twice" not in repr(project.query("select raw from main.account__reject"))

    # widen, as a nested JSONPath spelled in another case: it covers the whole `card` column
    specs = project.dir / "specs"
    (specs / "model.yaml").write_text(MODEL.replace('redact: ["$.notes"]', 'redact: ["$.notes", "$.Card.number"]'))
    out = project.dir / "models" / "bloomery"
    code = bloomery_main(["plan", "--new", str(specs), "--against-compiled", str(out)])
    assert code == 0
    assert project.compile() == 0
    project.write_bronze(BRONZE, COLUMNS, SECOND, append=True)
    project.dbt("build")        # the plan's one command
    staged = project.query("select _source_row_id from main.account__staged")
    assert ("r-1",) not in staged   # a-1 was not re-judged: its reject row was stored before the widening

    rejects = {r["_source_row_id"]: r for r in project.rows("select * from main.account__reject")}
    assert set(rejects) == {"r-1", "r-3"}
    for row in rejects.values():
        raw = row["raw"] if isinstance(row["raw"], dict) else json.loads(row["raw"])
        assert "card" not in raw and "notes" not in raw
        assert raw["_source_row_id"] == row["_source_row_id"] and "country" in raw  # the rest is kept
    for secret in (SECRET, LATER):
        assert _where_in_tables(project, secret) == []
        assert _where_in_files(project, secret) == []
    # bronze still has it: the redaction governs what bloomery writes, not the source
    assert SECRET in repr(project.query(f'select card from main."{BRONZE}"'))

    # nothing left to redact: the next build rewrites no reject row
    before = sorted(map(repr, project.query("select * from main.account__reject")))
    project.dbt("build")
    assert sorted(map(repr, project.query("select * from main.account__reject"))) == before
