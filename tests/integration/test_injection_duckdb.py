"""Spec strings are data, never code. The hostile corpus (integration_tests/corpus/hostile/specs)
puts quotes, comment markers, semicolons, statements and Jinja delimiters in identifiers (field
names, the bronze relation name), enum values, in_set values, a regex, transform arguments, an
expression's literals and the grain. It builds on DuckDB next to a canary table; afterwards the
canary is intact, no relation appeared that the build does not own, and every value arrived
exactly as written. What cannot be carried safely is refused by `bloomery check` (exit 1) with
the file, line and column of the offending value.
"""
from __future__ import annotations

import json
import re
import shutil

import pytest

from bloomery.cli import main as bloomery_main

from .harness import INTEGRATION, DuckProject

# dbt_artifacts: the manifest is read, and no secret may land in target/ or logs/
pytestmark = [pytest.mark.duckdb, pytest.mark.dbt_artifacts]

SPECS = INTEGRATION / "corpus" / "hostile" / "specs"
SOURCE = "evil'src; drop table canary; -- /* */"
GRAIN = "one row per thing'; drop table canary; -- /* {{ run_query('drop table canary') }} {% set x = 1 %} {# c #} */"
WEIRD, SPACED = "we'ird; drop table canary; --", "sp ace/*c*/ naïve"
COLUMNS = ["id", "a", "b", "c", "d", "e", "f", "payload", "_load_id", "_ingested_at", "_source_row_id"]
META = ("l1", "2024-03-01 00:00:00")
ROWS = [
    ("k1", "v", "\"'x", "o'k", "a'b", "ab';-", "a';--b';--c", json.dumps({"se": "';--", "n": "7"}), *META, "s1"),
    ("k2", None, None, "{{ x }}", "{{ x }}", "{{ x }}", None, json.dumps({"se": "plain", "n": "3"}), *META, "s2"),
    ("k3", "w", "y", "nope", "'; drop table canary; --", "UPPER", "x", json.dumps({}), *META, "s3"),
    ("k4", "'", "--", "x/*y*/", "\\'", "{{ y }}", "';--", json.dumps({"n": "1"}), *META, "s4"),
]
KEPT = {
    "k1": {WEIRD: "v'); drop table canary; -- {{ x }} %}", SPACED: "x", "select": None, "label": "it's", "tag": "a'b",
           "code": "ab';-", "part": "b", "n": 7, "_quality_flags": []},
    "k2": {WEIRD: None, SPACED: "it''s -- null", "select": "plain", "label": "{% raw %}", "tag": "{{ x }}",
           "code": "{{ x }}", "part": None, "n": 3, "_quality_flags": ["n_in_set"]},
}
REJECTED = {"k3": ["code_pattern", "label_in_enum"], "k4": ["code_pattern"]}


def tables(project) -> set:
    return set(project.query("select table_schema, table_name from information_schema.tables"))


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    project = DuckProject(tmp_path_factory.mktemp("hostile"), SPECS)
    project.execute("create table main.canary as select 42 as alive")
    project.write_bronze(SOURCE, COLUMNS, ROWS)
    assert project.compile() == 0
    before = tables(project)
    project.dbt("build")
    project.added = tables(project) - before
    return project


def test_no_statement_of_its_own_ran(built):
    assert built.query("select * from main.canary") == [(42,)]
    # `evil__staged_rest`: the first build published the staged table (write once) and kept the
    # rows it did not keep there, for the `evil__staged` view; `evil__ledger_rest`: the ledger's
    # deliveries not kept (the `evil__ledger` view reads it and the entity)
    assert built.added == {("main", n) for n in ("evil", "evil__staged", "evil__staged_rest", "evil__reject", "evil__ledger",
                                                 "evil__ledger_rest", "evil__quality",
                                                 "mart_data_quality", "quality_quarantine_rate", "quality_drift",
                                                 "quality_bronze_columns")} | {
        ("main_dbt_test__audit", "evil_conservation"), ("main_dbt_test__audit", "evil_ingestion_metadata")}


def test_values_round_trip(built):
    rows = {r.pop("id"): r for r in built.rows('select * exclude (_load_id, _ingested_at, _source_row_id, _quality_ok) from main.evil')}
    assert rows == KEPT
    rejects = {r["_source_row_id"]: r for r in built.rows("select * from main.evil__reject")}
    assert {json.loads(r["key_values"])["id"]: list(r["failed_rules"]) for r in rejects.values()} == REJECTED
    for r in rejects.values():
        assert r["source_relation"] == SOURCE and r["mapping"] == f"{SOURCE}->evil"
        bronze = next(row for row in ROWS if row[-1] == r["_source_row_id"])
        assert json.loads(r["raw"]) == dict(zip(COLUMNS, bronze)), "the reject row keeps the bronze payload exactly"
    assert {m for (m,) in built.query("select distinct mapping from main.mart_data_quality")} == {f"{SOURCE}->evil"}


def test_grain_reaches_the_docs_as_text(built):
    manifest = json.loads((built.dir / "target" / "manifest.json").read_text())
    node = next(n for n in manifest["nodes"].values() if n["resource_type"] == "model" and n["name"] == "evil")
    assert node["description"] == f"{GRAIN}. Rows kept by the quality split."


def test_replay_and_rebuild_stay_data(built):
    built.dbt("run-operation", "bloomery.replay", "--args", "{entity: evil}")
    built.dbt("build")
    assert built.query("select * from main.canary") == [(42,)]
    assert built.query("select count(*) from main.evil") == [(2,)]
    assert built.query("select count(*) from main.evil__reject where resolved_at is null") == [(2,)]


# -- what is refused, and where ---------------------------------------------------------------------
REFUSED = {
    "double quote in a field name": ("entity_model.yaml", '"sp ace/*c*/ naïve": {type: string}', '"sp ace\\"; drop": {type: string}',
                                     "mapping_evil.yaml", '"sp ace/*c*/ naïve":', '"sp ace\\"; drop":'),
    "backquote in a field name": ("entity_model.yaml", "select: {type: string}", "\"sel`ect\": {type: string}",
                                  "mapping_evil.yaml", "  select:", '  "sel`ect":'),
    "newline in a field name": ("entity_model.yaml", "select: {type: string}", '"sel\\nect": {type: string}',
                                "mapping_evil.yaml", "  select:", '  "sel\\nect":'),
    "double quote in the bronze relation": ("mapping_evil.yaml", 'source: "evil', 'source: "evil\\"; drop table canary; --'),
    "Jinja in the bronze relation": ("mapping_evil.yaml", 'source: "evil', 'source: "{{ x }}evil'),
    "Jinja in a field name": ("entity_model.yaml", "select: {type: string}", '"{% set x = 1 %}": {type: string}',
                              "mapping_evil.yaml", "  select:", '  "{% set x = 1 %}":'),
    "statement in a grant role": ("entity_model.yaml", "quarantine: {retention: 30d}",
                                  "quarantine: {retention: 30d}\n    grants: {select: [\"analyst; drop table canary\"]}"),
    "second statement in an expression": ("entity_model.yaml", "AND label <> '/* */ -- x'\"", "; drop table canary\""),
    "Jinja in an expression": ("entity_model.yaml", "AND label <> '/* */ -- x'\"", "AND label <> '{{ x }}'\""),
    "subquery in an expression": ("entity_model.yaml", "AND label <> '/* */ -- x'\"", "AND label IN (SELECT alive FROM canary)\""),
    "quote in a rule name": ("entity_model.yaml", "name: label_not_bad", "name: \"label'; drop\""),
    "quote in an entity name": ("entity_model.yaml", "  evil:\n", "  \"evil'x\":\n", "mapping_evil.yaml", "target: evil", "target: \"evil'x\""),
    "unanchored regex": ("mapping_evil.yaml", 'regex: "^[a-z\';-]+$|', 'regex: "[a-z\';-]+|'),
    "lookahead in a regex": ("mapping_evil.yaml", 'regex: "^[a-z\';-]+$|', 'regex: "^(?=\');[a-z]+$|'),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_refused_with_a_location(case, tmp_path, capsys):
    specs = tmp_path / "specs"
    shutil.copytree(SPECS, specs)
    edits = REFUSED[case]
    for file, old, new in zip(edits[0::3], edits[1::3], edits[2::3]):
        text = (specs / file).read_text()
        assert old in text, (case, old)
        (specs / file).write_text(text.replace(old, new, 1))
    capsys.readouterr()
    assert bloomery_main(["check", "--specs", str(specs)]) == 1, case
    out = capsys.readouterr()
    located = re.findall(r"(\w+\.yaml):(\d+):(\d+): ", out.out + out.err)
    assert located, f"{case}: no file:line:col in\n{out.out}{out.err}"
