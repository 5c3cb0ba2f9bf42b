"""Specs are data, never code: every string position of the spec grammar, with each hostile payload.

A payload is put where a data producer with write access to one spec file could put it. For each
(position, payload) the table below states what the product does with it:

- `BUILT`: the spec is accepted, and `dbt build` on DuckDB and PostgreSQL treats the text as data.
  Every accepted position of one payload goes into one spec tree, built next to a canary table.
  Afterwards the canary is intact, the value round-trips where a row can show it, no value of the
  environment variable the payload asks for is found under target/ or logs/, and no traceback.
- `REFUSED`: `bloomery check` exits 1 with a located error (file:line:col) and no traceback.

The payloads: quotes of every kind, a SQL statement with comments, Jinja in all three tag kinds
(one reads a secret from the environment, one runs a query), a bare `env_var(...)` call (dbt wraps
a test argument that looks like one in braces and renders it), and control characters.
"""
from __future__ import annotations

import copy
import json
import re
import shutil

import pytest
import yaml

from bloomery.cli import main as bloomery_main

from .harness import INTEGRATION, DuckProject, PgProject

pytestmark = pytest.mark.dbt_artifacts   # no secret lands in target/ or logs/ as a user's run writes them

SECRET_VAR = "BLOOMERY_HOSTILE_SECRET"
SECRET = "s3cr3t-value-that-must-not-leak"
PAYLOADS = {
    "quote": "it's \"dq\" `bq` back\\slash ''",
    "sql": "x'); drop table canary; -- /* c */ ;",
    "jinja": "{{ env_var('" + SECRET_VAR + "') }}{% do run_query('drop table canary') %}{# c #}",
    "call": "env_var('" + SECRET_VAR + "')",
    "control": "a\tb\x01c\x7fd\u2028e",
}
BUILT, REFUSED = "built", "refused"
ALL_BUILT = dict.fromkeys(PAYLOADS, BUILT)
ALL_REFUSED = dict.fromkeys(PAYLOADS, REFUSED)


def _regex_for(text: str) -> str:
    """An anchored pattern of the portable subset matching exactly `text`: every character that
    is not a letter or digit as a one-member class."""
    out = []
    for ch in text:
        if ch.isalnum():
            out.append(ch)
        else:
            out.append("[" + ("\\" + ch if ch in "]\\^-[" else ch) + "]")
    return "^(?:[a-z]+|" + "".join(out) + ")$"


def _python_regex_for(text: str) -> str:
    """An assert regex (Python `re` only, run by the engine) matching `text`, braces left as written
    so Jinja delimiters stay in the spec string."""
    return "^" + "".join("\\" + c if c in "\\.^$*+?()[]|" else c for c in text) + "$"


# -- the spec tree -------------------------------------------------------------------------------
def base_tree() -> dict[str, dict]:
    meta = ["$._load_id", "$._ingested_at", "$._source_row_id"]
    dedupe = {"keep": "latest_by", "field": "_ingested_at", "tie_break": ["_load_id"]}
    return {
        "entity_model.yaml": {
            "spec_version": 1,
            "entities": {
                "account": {"grain": "one row per account", "key": ["acct"],
                            "fields": {"acct": {"type": "string"}, "tier": {"type": "string"}}, "dedupe": dedupe},
                "payment": {
                    "grain": "one row per payment", "key": ["pay_id"],
                    "fields": {"pay_id": {"type": "string"}, "acct": {"type": "string"}, "label": {"type": "string"},
                               "note": {"type": "string"}, "code": {"type": "string"},
                               "paid_at": {"type": "timestamp"}},
                    "dedupe": dedupe, "quarantine": {"retention": "30d"},
                    "quality": [{"rule": "expression", "name": "label_allowed", "expr": "label <> 'zz'", "on_fail": "flag"},
                                {"rule": "referential", "via": "payment_account", "on_missing": "flag"}],
                },
            },
            "relationships": [{"name": "payment_account", "from": "payment", "to": "account", "via": {"acct": "acct"},
                               "cardinality": "many_to_one"}],
            "coverage": [{"name": "account_paid", "relationship": "payment_account", "min": 1, "on_fail": "flag"}],
        },
        "mapping_accounts.yaml": {
            "mapping_version": 1, "source": "crm__accounts", "target": "account",
            "key": {"acct": {"from": "$.acct"}}, "fields": {"tier": {"from": "$.tier"}}, "unmapped": meta,
        },
        "mapping_payments.yaml": {
            "mapping_version": 1, "source": "pay__payments", "target": "payment",
            "key": {"pay_id": {"from": "$.pay_id"}},
            "fields": {
                "acct": {"from": "$.acct"},
                "label": {"from": "$.label", "transform": [{"enum_map": ["a", "A", "b", "B"]}],
                          "quality": [{"rule": "in_enum", "on_fail": "quarantine"}]},
                "note": {"from": "$.note", "transform": ["trim"]},
                "code": {"from": "$.code", "quality": [{"rule": "pattern", "regex": "^[a-z]+$", "on_fail": "flag"},
                                                       {"rule": "in_set", "values": ["x", "y"], "on_fail": "flag"}]},
                "paid_at": {"from": "$.paid_at", "transform": [{"parse_ts": "ISO8601"}]},
            },
            "unmapped": meta,
        },
    }


def _payment(tree):
    return tree["entity_model.yaml"]["entities"]["payment"]


def _fields(tree):
    return tree["mapping_payments.yaml"]["fields"]


def _rename(mapping: dict, old: str, new: str) -> dict:
    return {new if k == old else k: v for k, v in mapping.items()}


def _set_grain(tree, p):
    _payment(tree)["grain"] = p


def _set_enum_map(tree, p):
    _fields(tree)["label"]["transform"] = [{"enum_map": ["a", "A", "b", "B", p, p]}]


def _set_in_set(tree, p):
    _fields(tree)["code"]["quality"][1]["values"] = ["x", "y", p]


def _set_pattern(tree, p):
    _fields(tree)["code"]["quality"][0]["regex"] = _regex_for(p)


def _set_transform_args(tree, p):
    # on the value `p` itself each step gives '' (or NULL) and the next concat restores `p`
    _fields(tree)["note"]["transform"] = [{"split_part": [p, 1]}, {"concat": p}, {"strip_prefix": p}, {"concat": p},
                                          {"strip_suffix": p}, {"concat": p}, {"coalesce": p}, {"nullif": p + p}]


def _set_expression_literal(tree, p):
    _payment(tree)["quality"][0]["expr"] = "label <> '" + p.replace("'", "''") + "'"


def _set_assert_enum(tree, p):
    _payment(tree)["fields"]["label"]["assert"] = {"enum": ["A", "B", p]}


def _set_assert_regex(tree, p):
    _payment(tree)["fields"]["code"]["assert"] = {"regex": _python_regex_for(p)}


def _set_parse_ts_format(tree, p):
    _fields(tree)["paid_at"]["transform"] = [{"parse_ts": "%Y-%m-%d " + p}]


def _set_to_utc_zone(tree, p):
    _fields(tree)["paid_at"]["transform"] = [{"parse_ts": "ISO8601"}, {"to_utc": p}]


def _set_field_name(tree, p):
    name = "note " + p
    _payment(tree)["fields"] = _rename(_payment(tree)["fields"], "note", name)
    tree["mapping_payments.yaml"]["fields"] = _rename(_fields(tree), "note", name)


def _set_source(tree, p):
    tree["mapping_payments.yaml"]["source"] = "pay " + p


def _set_entity_name(tree, p):
    model = tree["entity_model.yaml"]
    model["entities"] = _rename(model["entities"], "payment", "payment" + p)
    tree["mapping_payments.yaml"]["target"] = "payment" + p


def _set_rule_name(tree, p):
    _payment(tree)["quality"][0]["name"] = "label" + p


def _set_relationship_name(tree, p):
    tree["entity_model.yaml"]["relationships"][0]["name"] = "pa" + p
    _payment(tree)["quality"][1]["via"] = "pa" + p
    tree["entity_model.yaml"]["coverage"][0]["relationship"] = "pa" + p


def _set_coverage_name(tree, p):
    tree["entity_model.yaml"]["coverage"][0]["name"] = "cov" + p


def _set_grant_role(tree, p):
    _payment(tree)["grants"] = {"select": [p]}


def _set_source_path(tree, p):
    _fields(tree)["note"]["from"] = "$.note" + p


def _set_retention(tree, p):
    _payment(tree)["quarantine"]["retention"] = "30d" + p


def _set_redact(tree, p):
    _payment(tree)["quarantine"]["redact"] = ["$.extra" + p]


def _set_json_path(tree, p):
    _fields(tree)["note"]["transform"] = [{"json_path": "$.a" + p}]


def _model_field(tree, name="pay_id"):
    return _payment(tree)["fields"][name]


def _set_entity_description(tree, p):
    _payment(tree)["description"] = p


def _set_field_description(tree, p):
    _model_field(tree)["description"] = p


def _set_meta_value(tree, p):
    _payment(tree)["meta"] = {"team": p, "nested": {"note": [p]}}


def _set_owner(tree, p):
    _model_field(tree, "label")["owner"] = p


def _set_tag(tree, p):
    _payment(tree)["tags"] = ["finance" + p]


def _set_user_test(tree, p):
    # a user's own test on a field, with the payload as its description and in its config's meta
    _model_field(tree)["data_tests"] = [{"not_null": {"description": p, "config": {"meta": {"why": p}}}}]


# position -> (edit, what each payload does there)
POSITIONS = {
    "grain": (_set_grain, ALL_BUILT),
    "enum_map value": (_set_enum_map, ALL_BUILT),
    "in_set value": (_set_in_set, ALL_BUILT),
    # a control character in a pattern is not portable across the regex engines
    "pattern": (_set_pattern, {**ALL_BUILT, "control": REFUSED}),
    "transform arguments": (_set_transform_args, ALL_BUILT),
    # a backslash in a literal is read differently per engine; no Jinja delimiter in an expression
    "expression literal": (_set_expression_literal, {**ALL_BUILT, "quote": REFUSED, "jinja": REFUSED}),
    "assert enum value": (_set_assert_enum, ALL_BUILT),
    # an assert regex runs on the engine: the portable subset of `pattern` (issue 37), where `{` is
    # a repeat (so `{{` cannot be written) and a control character is not portable
    "assert regex": (_set_assert_regex, {**ALL_BUILT, "jinja": REFUSED, "control": REFUSED}),
    "parse_ts format": (_set_parse_ts_format, ALL_REFUSED),
    "to_utc zone": (_set_to_utc_zone, ALL_REFUSED),
    "field name": (_set_field_name, {**ALL_BUILT, "quote": REFUSED, "jinja": REFUSED, "control": REFUSED}),
    "bronze relation": (_set_source, {**ALL_BUILT, "quote": REFUSED, "jinja": REFUSED, "control": REFUSED}),
    "entity name": (_set_entity_name, ALL_REFUSED),
    "rule name": (_set_rule_name, ALL_REFUSED),
    "relationship name": (_set_relationship_name, ALL_REFUSED),
    "coverage name": (_set_coverage_name, ALL_REFUSED),
    "grant role": (_set_grant_role, ALL_REFUSED),
    "source path": (_set_source_path, ALL_REFUSED),
    "retention": (_set_retention, ALL_REFUSED),
    "redact path": (_set_redact, ALL_REFUSED),
    "json_path path": (_set_json_path, ALL_REFUSED),
    # dbt metadata passed through to the generated YAML (issue 23): dbt renders descriptions and
    # test configs as Jinja, so every string arrives as a Jinja string literal
    "entity description": (_set_entity_description, ALL_BUILT),
    "field description": (_set_field_description, ALL_BUILT),
    "meta value": (_set_meta_value, ALL_BUILT),
    "owner": (_set_owner, ALL_BUILT),
    "user test": (_set_user_test, ALL_BUILT),
    # a tag is something a selector names: plain names only
    "tag": (_set_tag, ALL_REFUSED),
}


def tree_for(payload: str, positions) -> dict:
    tree = copy.deepcopy(base_tree())
    for pos in positions:
        POSITIONS[pos][0](tree, payload)
    return tree


def write_tree(tree: dict, folder):
    folder.mkdir(parents=True, exist_ok=True)
    for name, doc in tree.items():
        # safe_dump writes every control character as a YAML escape
        (folder / name).write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=False, width=10_000))


# -- refused ---------------------------------------------------------------------------------------
REFUSALS = sorted((pos, kind) for pos, (_, outcome) in POSITIONS.items() for kind, o in outcome.items() if o == REFUSED)


@pytest.mark.parametrize(("position", "kind"), REFUSALS, ids=[f"{p}-{k}" for p, k in REFUSALS])
def test_refused_with_a_location(position, kind, tmp_path, capsys):
    write_tree(tree_for(PAYLOADS[kind], [position]), tmp_path / "specs")
    assert bloomery_main(["check", "--specs", str(tmp_path / "specs")]) == 1
    out = capsys.readouterr()
    text = out.out + out.err
    assert re.search(r"\w+\.yaml:\d+:\d+: ", text), f"no file:line:col in\n{text}"
    assert "Traceback" not in text and "internal error" not in text


def test_the_base_tree_is_accepted(tmp_path, capsys):
    """The refusals above are the payload's doing, not the tree's."""
    write_tree(base_tree(), tmp_path / "specs")
    assert bloomery_main(["check", "--specs", str(tmp_path / "specs")]) == 0, capsys.readouterr()


# -- built -----------------------------------------------------------------------------------------
META = ("l1", "2024-03-01 00:00:00")
PAY_COLUMNS = ["pay_id", "acct", "label", "note", "code", "paid_at", "_load_id", "_ingested_at", "_source_row_id"]


def build(project, kind: str, monkeypatch) -> dict:
    payload = PAYLOADS[kind]
    accepted = [pos for pos, (_, outcome) in POSITIONS.items() if outcome[kind] == BUILT]
    tree = tree_for(payload, accepted)
    shutil.rmtree(project.dir / "specs")
    write_tree(tree, project.dir / "specs")
    monkeypatch.setenv(SECRET_VAR, SECRET)
    project.execute("create table main.canary as select 42 as alive")
    source = tree["mapping_payments.yaml"]["source"]
    note = next(f for f in _fields(tree) if f.startswith("note"))
    project.write_bronze("crm__accounts", ["acct", "tier", "_load_id", "_ingested_at", "_source_row_id"],
                         [("c1", "gold", *META, "a1")])
    project.write_bronze(source, PAY_COLUMNS, [
        ("p1", "c1", "a", "plain", "x", "2024-03-01 10:00:00", *META, "s1"),
        ("p2", "c1", payload, payload, payload, "2024-03-01 11:00:00", *META, "s2"),
        ("p3", "c9", "zz", "n", "y", "2024-03-01 12:00:00", *META, "s3"),
    ])
    assert project.compile() == 0
    result = project.dbt("build")
    return {"accepted": accepted, "note": note, "result": result}


def _leaks(project) -> list[str]:
    found = []
    for folder in ("target", "logs"):
        for path in (project.dir / folder).rglob("*"):
            if path.is_file() and SECRET in path.read_text(errors="replace"):
                found.append(str(path.relative_to(project.dir)))
    return found


def check_built(project, kind: str, built: dict):
    payload = PAYLOADS[kind]
    assert project.artifacts, "the leak check reads target/ and logs/ as a user's run writes them"
    assert project.query("select * from main.canary") == [(42,)]
    assert _leaks(project) == []
    log = (project.dir / "logs" / "dbt.log").read_text(errors="replace")
    assert "Traceback" not in log
    # the values arrive as written: p2 carries the payload in every value position
    kept = {r["pay_id"]: r for r in project.rows("select * from main.payment")}
    assert set(kept) == {"p1", "p2"}
    p2 = kept["p2"]
    assert p2["label"] == payload, "enum_map maps the payload to itself, and in_enum accepts it"
    assert p2["code"] == payload
    flags = sorted(p2["_quality_flags"] if not isinstance(p2["_quality_flags"], str) else p2["_quality_flags"].split(","))
    # the expression (label <> payload) fires where it was built; pattern and in_set accept the payload
    # (where the payload could not be a pattern, the base `^[a-z]+$` flags it)
    expected = (["code_pattern"] if "pattern" not in built["accepted"] else []) + \
        (["label_allowed"] if "expression literal" in built["accepted"] else [])
    assert flags == expected
    if "transform arguments" in built["accepted"]:
        assert p2[built["note"]] == payload
    rejected = project.query("select _source_row_id from main.payment__reject where resolved_at is null")
    assert rejected == [("s3",)], "p3's label is not in the enum"
    # warn-level asserts ran on the payload as data: the assert enum holds for p2 (and p1's label is 'A')
    statuses = built["result"].statuses
    assert all(s in ("success", "pass", "warn") for s in statuses.values()), statuses


@pytest.mark.duckdb
@pytest.mark.parametrize("kind", sorted(PAYLOADS))
def test_built_as_data_on_duckdb(kind, tmp_path, monkeypatch):
    project = DuckProject(tmp_path)
    check_built(project, kind, build(project, kind, monkeypatch))


@pytest.mark.postgres
@pytest.mark.parametrize("kind", sorted(PAYLOADS))
def test_built_as_data_on_postgres(kind, pg_server, tmp_path, monkeypatch):
    project = PgProject(tmp_path, pg_server)
    check_built(project, kind, build(project, kind, monkeypatch))


# -- the reproductions of issue 18, each as it was reported ----------------------------------------
SCD2 = INTEGRATION / "corpus" / "scd2" / "specs"
TIER = "ti'er; drop table canary; --"


def type2_with_hostile_names(project):
    """A type 2 entity keyed by a reserved word, with a field named like a statement: the snapshot's
    unique_key and check_cols reached dbt's SQL unquoted (the second build dropped the canary)."""
    for f in (project.dir / "specs").iterdir():
        f.unlink()
    for f in SCD2.iterdir():
        text = f.read_text().replace("tier:", f'"{TIER}":').replace("sku:", "select:").replace("key: [sku]", "key: [select]")
        (project.dir / "specs" / f.name).write_text(text)
    project.execute("create table main.canary as select 42 as alive")
    columns = ["sku", "tier", "amount", "_load_id", "_ingested_at", "_source_row_id"]
    project.write_bronze("erp__prices", columns, [("S1", "std", "10.00", "l1", "2024-01-01 00:00:00", "r-1")])
    assert project.compile() == 0
    project.dbt("build")
    project.write_bronze("erp__prices", columns, [("S1", "std", "12.00", "l2", "2024-01-02 00:00:00", "r-2")], append=True)
    project.dbt("build")
    assert project.query("select * from main.canary") == [(42,)]
    versions = project.rows('select "select", "' + TIER.replace('"', '""') + '" as tier, amount, dbt_valid_to is null as current '
                            'from main.price order by dbt_valid_from')
    assert [(v["select"], v["tier"], str(v["amount"]), v["current"]) for v in versions] == [
        ("S1", "standard", "10.00", False), ("S1", "standard", "12.00", True)]


@pytest.mark.duckdb
def test_type2_snapshot_keys_are_quoted_on_duckdb(tmp_path):
    type2_with_hostile_names(DuckProject(tmp_path))


@pytest.mark.postgres
def test_type2_snapshot_keys_are_quoted_on_postgres(pg_server, tmp_path):
    type2_with_hostile_names(PgProject(tmp_path, pg_server))


@pytest.mark.duckdb
def test_an_assert_enum_with_a_quote_warns_instead_of_breaking_the_build(tmp_path, monkeypatch):
    """`assert: {enum: [ok, "it's"]}` failed the build with `unterminated string literal`."""
    project = DuckProject(tmp_path)
    tree = base_tree()
    _payment(tree)["fields"]["note"]["assert"] = {"enum": ["ok", "it's"]}
    shutil.rmtree(project.dir / "specs")
    write_tree(tree, project.dir / "specs")
    project.write_bronze("crm__accounts", ["acct", "tier", "_load_id", "_ingested_at", "_source_row_id"],
                         [("c1", "gold", *META, "a1")])
    project.write_bronze("pay__payments", PAY_COLUMNS, [
        ("p1", "c1", "a", "it's", "x", "2024-03-01 10:00:00", *META, "s1"),
        ("p2", "c1", "b", "nope", "y", "2024-03-01 11:00:00", *META, "s2")])
    assert project.compile() == 0
    result = project.dbt("build")
    assert result.statuses["payment_note_enum"] == "warn"   # p2 only: "it's" is one of the values
    failures = result.result.results
    assert [r.failures for r in failures if r.node.name == "payment_note_enum"] == [1]


# -- the reproductions of issue 37: no statement from a name, no steering from a bronze column ----
from .harness import ENGINES, engine_project, load_logs  # noqa: E402

SQL_NAME = "n) or (1=1)); drop table canary; --"
HOSTILE_BRONZE = {"_bloomery_route": "keep", "_bloomery_rank": "1", "_bloomery_winner": "s-forged",
                  "_bloomery_raw": '{"pay_id": "forged", "_source_row_id": "forged"}'}
ROUTED_COLUMNS = PAY_COLUMNS + ["is_ok", "sqln"] + list(HOSTILE_BRONZE)


def _names_tree() -> dict:
    """The base tree plus a bool field spelled in mixed case, judged bare (`IsOk`), and a field
    whose name is SQL, read by an expression."""
    tree = base_tree()
    _payment(tree)["fields"].update({"IsOk": {"type": "bool"}, SQL_NAME: {"type": "string"}})
    _fields(tree).update({"IsOk": {"from": "$.is_ok", "transform": ["to_bool"]}, SQL_NAME: {"from": "$.sqln"}})
    _payment(tree)["quality"] += [
        {"rule": "expression", "name": "is_ok", "expr": "IsOk", "on_fail": "flag"},
        {"rule": "expression", "name": "sqln_ok", "expr": '"' + SQL_NAME + "\" <> 'bad'", "on_fail": "flag"}]
    return tree


def _refused(project, tree) -> bool:
    shutil.rmtree(project.dir / "specs")
    write_tree(tree, project.dir / "specs")
    return project.compile() == 1


@pytest.fixture(params=ENGINES)
def engine(request):
    return request.param


def test_a_name_never_becomes_sql_and_a_bronze_column_never_steers(engine, tmp_path, request):
    """The report: a field named `id__bloomery_col_1__x` next to a field whose name is SQL, both read
    by one expression, ran `drop table` (the placeholders were substituted one after another, the
    guard was case-sensitive). And bronze columns named like bloomery's own (`_bloomery_route`,
    `_rank`, `_winner`, `_raw`) published a failing row, decided dedupe and forged the reject
    payload. Now the names are refused at compile, the expression is joined once from its parts,
    and the staged query reads only the bronze columns it names: a hostile bronze column is inert."""
    project = engine_project(engine, tmp_path, request)
    project.execute("create table main.canary as select 42 as alive")
    # refused: the reproduction, and spec names that would shadow bloomery's columns
    repro = _names_tree()
    _payment(repro)["fields"]["id__bloomery_col_1__x"] = {"type": "string"}
    _fields(repro)["id__bloomery_col_1__x"] = {"from": "$.note"}
    _payment(repro)["quality"][2]["expr"] = 'ID__BLOOMERY_COL_1__X = "' + SQL_NAME + '"'
    assert _refused(project, repro)
    shadow = _names_tree()
    shadow["mapping_payments.yaml"]["unmapped"].append("$._bloomery_raw")
    assert _refused(project, shadow)
    shadow = _names_tree()
    _payment(shadow)["fields"]["_bloomery_route"] = {"type": "string"}
    _fields(shadow)["_bloomery_route"] = {"from": "$._bloomery_route"}
    assert _refused(project, shadow)

    # built: the legitimate names, with bronze carrying columns named like bloomery's own
    assert not _refused(project, _names_tree())
    project.write_bronze("crm__accounts", ["acct", "tier", "_load_id", "_ingested_at", "_source_row_id"],
                         [("c1", "gold", *META, "a1")])
    hostile = tuple(HOSTILE_BRONZE.values())
    project.write_bronze("pay__payments", ROUTED_COLUMNS, [
        ("p1", "c1", "a", "n", "x", "2024-03-01 10:00:00", *META, "s1", "false", "bad", *hostile),   # both expressions fire
        ("p2", "c1", "zz", "n", "x", "2024-03-01 11:00:00", *META, "s2", "false", "bad", *hostile),   # label not in enum
        ("p3", "c1", "b", "n", "x", "2024-03-01 12:00:00", "l1", "2024-03-01 00:00:00", "s3", "false", "bad", *hostile),
        ("p3", "c1", "b", "m", "x", "2024-03-01 12:00:00", "l2", "2024-03-02 00:00:00", "s4", "true", "good", *hostile),
    ])
    result = project.dbt("build", check=False)
    assert project.query("select * from main.canary") == [(42,)]
    assert result.success, {k: v for k, v in result.statuses.items() if v not in ("success", "pass", "warn")}
    kept = {r["pay_id"]: r for r in project.rows("select * from main.payment")}
    assert set(kept) == {"p1", "p3"}, "the failing row is not published; no forged row"
    assert kept["p3"]["_source_row_id"] == "s4", "dedupe is decided by the ingestion metadata"
    flags = {k: sorted(r["_quality_flags"] if not isinstance(r["_quality_flags"], str) else r["_quality_flags"].split(","))
             for k, r in kept.items()}
    assert flags == {"p1": ["is_ok", "sqln_ok"], "p3": []}, "the bare bool column and the SQL-named field are judged"
    rejects = project.rows("select _source_row_id, raw from main.payment__reject")
    assert [r["_source_row_id"] for r in rejects] == ["s2"]
    raw = json.loads(rejects[0]["raw"]) if isinstance(rejects[0]["raw"], str) else rejects[0]["raw"]
    assert raw["pay_id"] == "p2" and "_bloomery_raw" not in raw, "the reject payload is the bronze row's named columns"
    ledger = dict(project.query("select _source_row_id, route from main.payment__ledger"))
    assert ledger == {"s1": "keep", "s2": "quarantine", "s3": "deduped", "s4": "keep"}
    # replay re-judges the reject row from its payload: nothing forged is admitted
    project.dbt("run-operation", "bloomery.replay", "--args", "{entity: payment}")
    assert {r[0] for r in project.query("select pay_id from main.payment")} == {"p1", "p3"}
    assert project.query("select * from main.canary") == [(42,)]


def test_a_generated_relation_never_replaces_bronze(engine, tmp_path, request):
    """The report: an entity named like its bronze relation, in the same schema, replaced the bronze
    table on the first build. Refused at compile; and at run start, before any model runs, a
    generated relation that is any source the project reads (here a user's own source, which the
    compile cannot see) stops the build with the fix named."""
    project = engine_project(engine, tmp_path, request)
    tree = base_tree()
    model = tree["entity_model.yaml"]
    model["entities"]["crm__accounts"] = model["entities"].pop("account")
    tree["mapping_accounts.yaml"]["target"] = "crm__accounts"
    model["relationships"][0]["to"] = "crm__accounts"
    project.write_bronze("crm__accounts", ["acct", "tier", "_load_id", "_ingested_at", "_source_row_id"],
                         [("c1", "gold", *META, "a1")])
    assert _refused(project, tree)

    assert not _refused(project, base_tree())
    project.write_bronze("pay__payments", PAY_COLUMNS, [("p1", "c1", "a", "n", "x", "2024-03-01 10:00:00", *META, "s1")])
    project.execute("create table main.payment (legacy_id int)")
    project.execute("insert into main.payment values (7)")
    (project.dir / "models" / "legacy.yml").write_text(
        "version: 2\nsources:\n  - name: legacy\n    schema: \"{{ target.schema }}\"\n    tables: [{name: payment}]\n")
    result = project.dbt("build", check=False)
    assert not result.success
    assert not any(s == "success" for s in result.statuses.values()), "no model may run"
    assert project.query("select legacy_id from main.payment") == [(7,)]
    log = load_logs(project)
    assert "is the source `legacy.payment` this project reads" in log and "Nothing was run" in log
