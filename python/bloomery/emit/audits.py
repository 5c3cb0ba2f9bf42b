"""The dbt tests bloomery generates for an entity: its blocking audits (fail rules, ingestion
metadata, source collisions, conservation, key uniqueness, coverage), its field asserts, and the
user's own tests, each named, tagged and with inert arguments.

Separate because the entity's YAML, the reconcile checks and the project-level models all attach
tests built the same way, and a test's name and arguments are an injection boundary of their own.
"""
from __future__ import annotations

import hashlib
import re

from ..resolve.ir import Disposition, Entity
from .jinja_literal import inert_argument, literal
from .nodes import _merged, _ref
from .yaml_data import _data, _prose


def _user_test(spec: dict) -> dict:
    """One of the user's tests (compiler._dbt_test) in dbt's YAML: every string in it is data
    (jinja_literal via _data), so dbt's rendering of test arguments and config runs none of it."""
    body = {}
    if spec.get("name"):
        body["name"] = spec["name"]
    if spec.get("description"):
        body["description"] = _prose(spec["description"])
    config = dict(spec["config"])
    if isinstance(config.get("tags"), str):
        config["tags"] = [config["tags"]]
    # dbt renders a test's config values natively one level deep (generic_test_builders
    # _render_values) and keeps what is nested (a `meta:` map) as written
    body["config"] = {k: _data(v) if isinstance(v, str) else v for k, v in config.items()}
    if spec["arguments"]:
        body["arguments"] = _data(spec["arguments"])
    return {spec["test"]: body}


def _tagged(tests: list[dict], tags: list[str]) -> list[dict]:
    """Give each test (`{test: body}`) the tags, after any it has."""
    for test in tests:
        body = next(iter(test.values()))
        config = body.setdefault("config", {})
        own = config.get("tags") or []
        config["tags"] = list(own) + [t for t in tags if t not in own]
    return tests


def _test(test: str, name: str, description: str, severity: str = "error", relations: dict | None = None,
          **arguments) -> dict:
    """One generic test. `relations` are dbt references we build (`{{ ref(...) }}`); every other
    argument may carry spec text and goes as inert JSON, which dbt's rendering of test arguments
    cannot execute (jinja_literal.inert_argument; the macro reads it with bloomery.argument)."""
    # Blocking audits keep their offending rows (dbt's store_failures) so an operator can see
    # which `_source_row_id`s stopped the run, not just how many.
    config = {"severity": severity, "store_failures": True} if severity == "error" else {"severity": severity}
    body = {"name": _test_name(name), "description": _prose(description), "config": config}
    args = {k: inert_argument(v) for k, v in arguments.items()}
    args.update(relations or {})
    if args:
        body["arguments"] = args
    return {test: body}


def _test_name(name: str) -> str:
    """A test's name becomes a node id, a file name and (stored failures) a relation name: a field
    name may hold any character, so anything but [A-Za-z0-9_] is folded, with a digest of the
    original so two fields that fold alike keep two tests."""
    folded = re.sub(r"[^A-Za-z0-9_]", "_", name)
    return folded if folded == name else f"{folded}_{hashlib.sha256(name.encode()).hexdigest()[:8]}"


def _audits(entity: Entity) -> tuple[list, list, list]:
    """Blocking audits: on `__staged` so a failure stops the entity, its reject table and the mart;
    on the entity; and the conservation law on `__ledger`, which is built last."""
    name = entity.name
    staged, kept = [], []
    if entity.metadata:
        # the bronze relations are sources, never refs: the ledger this audit compares with is
        # looked up by name, since a reference to it would run the audit after it is built
        staged.append(_test("bloomery.bloomery_ingestion_metadata", f"{name}_ingestion_metadata",
                            "Blocking: _load_id, _ingested_at and _source_row_id present, _ingested_at casts to "
                            "timestamp, no source row claimed by two keys, and no delivery identity carrying "
                            "other content than another bronze row or the ledger gave it.",
                            relations={"sources": ["{{ source('bronze', " + literal(m.source) + ") }}"
                                                   for m in entity.mappings]},
                            entity=name, key=list(entity.key), names=[m.source for m in entity.mappings]))
    for rule in entity.rules:
        if rule.disposition is Disposition.FAIL:
            staged.append(_test("bloomery.bloomery_fail_rule", f"{name}_{rule.name}",
                                f"Blocking: rows that fired fail rule `{rule.name}`, in this run or published.",
                                rule=rule.name, entity=name, current_only=entity.scd == "type2"))
    for c in entity.coverage or ():
        kept.append(_test("bloomery.bloomery_coverage", f"{c['name']}_coverage",
                          f"Every `{c['to']}` has at least {c['min']} `{name}` row(s) ({c['on_fail']}).",
                          "error" if c["on_fail"] == "fail" else "warn",
                          relations={"parent": _ref(c["to"])}, pairs=c["pairs"], min=c["min"],
                          member=c.get("member")))
    if _merged(entity) and not entity.declared_dedupe:
        # nothing decides between two mappings' rows of one key: the build stops before either is published
        staged.append(_test("bloomery.bloomery_source_collision", f"{name}_source_collision",
                            "Blocking: a key delivered by more than one of the entity's mappings (declare dedupe: "
                            "to let the latest delivery win).",
                            entity=name, key=entity.identity_key, incremental=bool(entity.metadata),
                            current_only=entity.scd == "type2"))
    ledger = []
    if entity.metadata:
        relations = {"entity": _ref(name),
                     "sources": ["{{ source('bronze', " + literal(m.source) + ") }}" for m in entity.mappings]}
        if entity.quarantine:
            relations["reject"] = _ref(f"{name}__reject")
        ledger.append(_test("bloomery.bloomery_conservation", f"{name}_conservation",
                            "Blocking: every bronze row is judged, and is in the entity, unresolved in the reject "
                            "table, resolved, or recorded as having lost its key to a named winner.",
                            relations=relations, names=[m.source for m in entity.mappings],
                            current_only=entity.scd == "type2", merged=_merged(entity)))
    if not entity.declared_dedupe:
        # dedupe is the only thing that keeps one row per key: without it two bronze rows of a key
        # are both published. Read on the entity as published (earlier incremental runs included).
        # A type 2 entity ranks its versions by delivery order instead, so its snapshot holds one
        # current version per key by construction: the audit stays, as the guard of that snapshot.
        # Its delivery order ranks a NULL key per source row (each such row its own group, as
        # under dedupe:), and its snapshot versions each such row apart (yaml_data._version_key):
        # the audit tells those rows apart by the identity of the source row too.
        versions = entity.scd == "type2" and entity.metadata
        kept.append(_test("bloomery.bloomery_key_unique", f"{name}_key_unique",
                          "Blocking: no key is held by two rows" + (" among current versions" if entity.scd == "type2"
                                                                     else "") + " (the entity declares no dedupe:).",
                          key=entity.identity_key, current_only=entity.scd == "type2",
                          **({"null_key_rows": (["_source"] if _merged(entity) else []) + ["_source_row_id"]}
                             if versions else {})))
    return staged, kept, ledger


def _attach_asserts(entity: Entity, columns: list[dict], taken: set[str]):
    """Field `assert:` clauses: tests with severity warn, because an assert tells and never routes."""
    by_name = {c["name"]: c for c in columns}
    for a in entity.asserts:
        # `<entity>_<field>_not_null` is also the name of a fail audit on a not_null rule
        a = dict(a, name=a["name"] + "_assert" if a["name"] in taken else a["name"])
        column = by_name[a["column"]]
        tests = column.setdefault("data_tests", [])
        what = f"Assert (warn): {a['column']} {a['kind']}"
        # the package's own tests, not dbt's: `not_null` and `accepted_values` write the column
        # name and the values into SQL as they are
        if a["kind"] == "not_null":
            tests.append(_test("bloomery.bloomery_assert_not_null", a["name"], what, "warn"))
        elif a["kind"] == "enum":
            tests.append(_test("bloomery.bloomery_assert_enum", a["name"], what, "warn", values=a["value"],
                               column_type=a["column_type"]))
        elif a["kind"] in ("min", "max"):
            tests.append(_test("bloomery.bloomery_assert_bound", a["name"], what, "warn", bound=a["value"], side=a["kind"]))
        else:
            tests.append(_test("bloomery.bloomery_assert_regex", a["name"], what, "warn", regex=a["value"]))
