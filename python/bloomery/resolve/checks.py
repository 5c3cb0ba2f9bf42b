"""Stage 4 for an entity's contract checks: redaction that would break replay, classified columns
published without grants, and the `assert:` clauses (dbt tests on the published entity)."""
from __future__ import annotations

import re

from .. import errors as E
from ..guardrails.literals import _bound_literal
from ..guardrails.regex_subset import PortableRegexError, check_portable_regex
from ..spec.dbt_metadata import _show
from ..transforms.types import parse_type
from ..vocabulary import METADATA
from .naming import assert_name
from .tree import SpecTree
from .values import top_column, type_ir


def check_redaction(tree: SpecTree, name, entity, quarantine, docs):
    for j, p in enumerate(quarantine.get("redact", [])):
        col = top_column(p)
        where = ("entities", name, "quarantine", "redact", j)
        if col.lower() in METADATA and docs:
            # ingestion metadata is carried through to silver: a published column
            tree.error(E.RedactionConflict, tree.model, where,
                       f"`{col}` is ingestion metadata: it is published with `{name}` and identifies the row "
                       "for replay, so it cannot be redacted", "remove it from `redact:`")
            continue
        for doc in docs:
            v = doc.value
            reads = {s: top_column(spec["from"]) for sec in ("key", "fields") for s, spec in v.get(sec, {}).items()}
            clash = sorted(f for f, c in reads.items() if c.lower() == col.lower())
            if clash:
                tree.error(E.RedactionConflict, tree.model, where,
                           f"redacting bronze column `{col}` would destroy what {tree.mapping_label(doc)} reads "
                           f"for {', '.join(clash)}: replay would have nothing to re-run against",
                           "redact only columns the mapping does not read (list them under `unmapped:`); "
                           "to protect a published column, classify it and grant the entity")


def check_classification(tree: SpecTree, name, entity, mapping_irs):
    if entity.get("grants"):
        return
    for fname, spec in entity["fields"].items():
        level = spec.get("classification")
        if level and level != "public":
            tree.error(E.ClassificationUngranted, tree.model, ("entities", name, "fields", fname, "classification"),
                       f"`{fname}` is classified {level}, but the relations that publish `{name}` declare no grants",
                       "add grants: {select: [<role>]} to the entity, or classify the column public")


def check_asserts(tree: SpecTree, name, entity, docs):
    mapped = {c for d in docs for sec in ("key", "fields") for c in d.value.get(sec, {})}
    for fname, spec in entity["fields"].items():
        clause = spec.get("assert")
        if not clause:
            continue
        path = ("entities", name, "fields", fname, "assert")
        t = parse_type(spec["type"])
        if fname not in mapped:
            tree.error(E.AssertLoweringError, tree.model, path,
                       f"`{fname}` carries assert: but no mapping of `{name}` maps it, so there is nothing to check",
                       "map the field or drop the assert")
            continue
        for b in ("min", "max"):
            if b in clause and _bound_literal(clause[b], t) is None:
                tree.error(E.AssertLoweringError, tree.model, path + (b,),
                           f"assert {b} {_show(clause[b])} does not compare with `{fname}` ({t})",
                           "min/max need a number on an int/decimal field, or an ISO date/timestamp string on "
                           "a date/timestamp field")
        if "enum" in clause:
            ok = (t.name == "string" and all(isinstance(x, str) for x in clause["enum"])) or \
                 (t.name == "int" and all(isinstance(x, int) and not isinstance(x, bool) for x in clause["enum"]))
            if not ok:
                tree.error(E.AssertLoweringError, tree.model, path + ("enum",),
                           f"assert enum members must match `{fname}`'s type ({t})",
                           "strings for a string field, integers for an int field")
        if "regex" in clause:
            if t.name != "string":
                tree.error(E.AssertLoweringError, tree.model, path + ("regex",),
                           f"assert regex needs a string field; `{fname}` is {t}", "drop it or assert min/max")
            else:
                # it runs on the engine (RE2, POSIX ARE, Java): the subset `pattern` accepts, so
                # `check` refuses what a build would fail on; unanchored, as v1 allows
                try:
                    check_portable_regex(clause["regex"], anchored=False)
                except PortableRegexError as exc:
                    tree.error(E.AssertLoweringError, tree.model, path + ("regex",), str(exc),
                               "assert regex accepts the portable regex subset of `pattern` (docs/quality-rules.md)")
                except (re.error, OverflowError, RecursionError, ValueError) as exc:
                    tree.error(E.AssertLoweringError, tree.model, path + ("regex",),
                               f"assert regex does not compile: {exc}", "fix the regular expression")


def assert_irs(tree: SpecTree, name, entity) -> list[dict]:
    out = []
    for fname, spec in entity["fields"].items():
        clause = spec.get("assert") or {}
        t = parse_type(spec["type"])
        for kind in ("not_null", "enum", "min", "max", "regex"):
            if kind not in clause or (kind == "not_null" and not clause[kind]):
                continue
            value = clause[kind]
            if kind in ("min", "max"):
                value = _bound_literal(value, t)
            out.append({"name": assert_name(name, fname, kind), "column": fname, "kind": kind, "value": value,
                        "column_type": type_ir(t)})
    return out
