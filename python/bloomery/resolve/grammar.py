"""Stage 1, parse: find the spec documents, read them, and check the grammar the JSON Schema
cannot express (reserved and unquotable names, type strings, bounds, regexes, dbt metadata)."""
from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

from .. import errors as E
from ..errors import Location
from ..guardrails.literals import _bound_ok, _bounds_reversed
from ..guardrails.targets import NAME_MAX_BYTES
from ..guardrails.regex_subset import PortableRegexError, check_portable_regex
from ..spec.dbt_metadata import (SQL_KEYS, _meta_problems, _show, _test_problems, limit_problems, relation_configs,
                                  sql_carriers)
from ..spec.documents import discover_specs, read_document
from ..transforms.types import type_problem
from ..vocabulary import INTERNAL_PREFIX, PLACEHOLDER, RESERVED, in_namespace, is_reserved
from .tree import SpecTree
from .values import DRIFT_DEFAULTS, basis_points, top_column

# What cannot sit inside a quoted SQL identifier as written: the shipped dialects quote with " or `
# and dbt's adapter.quote does not escape either; control characters have no place in a name.
# Nor a Jinja delimiter: dbt renders names in the YAML it reads (a source's name among them).
_UNQUOTABLE = re.compile(r'["`\x00-\x1f\x7f]|\{\{|\{%|\{#')
_ROLE = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]*$")   # dbt writes grantees unquoted


def load(tree: SpecTree):
    if not tree.specs_dir.is_dir():
        tree.sink.add(E.SpecParseError(f"specs directory {tree.specs_dir} does not exist",
                                       Location(str(tree.specs_dir)), "pass --specs DIR, the folder holding the spec files"))
        return
    def show(path: Path) -> str:
        return str(path.relative_to(tree.specs_dir.parent)) if tree.specs_dir.parent != path else str(path)

    # a spec symlinked in from outside the folder is refused here, never read
    paths, refused = discover_specs(tree.specs_dir, show)
    tree.sink.extend(refused)
    for path in paths:
        doc, errs = read_document(path, show(path))
        tree.sink.extend(errs)
        if doc is None:
            continue
        if doc.kind == "entity_model":
            if tree.model is not None:
                tree.error(E.SpecParseError, doc, ("spec_version",),
                           f"a second entity model; the first is {tree.model.file}",
                           "keep exactly one `spec_version: 1` document per project")
            else:
                tree.model = doc
        elif doc.kind == "mapping":
            tree.mappings.append(doc)
        elif doc.kind == "catalog":
            if tree.catalog is not None:
                tree.error(E.SpecParseError, doc, ("catalog_version",), "a second catalog",
                           f"keep at most one catalog; the first is {tree.catalog.file}")
            else:
                tree.catalog = doc
    if tree.model is None and not tree.sink.errors:
        tree.sink.add(E.SpecParseError(
            "no entity model found (a document with `spec_version: 1`)",
            Location(str(tree.specs_dir)), "add entity_model.yaml with `spec_version: 1` and `entities:`"))


def parse_semantics(tree: SpecTree):
    """Grammar the JSON Schema cannot express: reserved names, type strings, bounds, regexes."""
    model = tree.model
    for name, entity in model.value["entities"].items():
        base = ("entities", name)
        for fname, fspec in entity["fields"].items():
            if is_reserved(fname):  # the exact names also refused by the schema
                tree.error(E.SpecParseError, model, base + ("fields", fname), _reserved_message("field", fname),
                           "rename the field")
            bad = _UNQUOTABLE.search(fname)
            if bad:
                tree.error(E.SpecParseError, model, base + ("fields", fname),
                           f"field name {fname!r} contains {bad.group()!r}, which cannot be written inside a quoted "
                           "SQL identifier or a dbt YAML file", "rename the field: letters, digits, underscores")
            problem = type_problem(fspec["type"])
            if problem and problem[0] == "grammar":
                tree.error(E.SpecParseError, model, base + ("fields", fname, "type"), problem[1],
                           "decimal(p,s) needs 1 <= p <= 38 and s <= p, e.g. decimal(12,4)")
        dbt_metadata_grammar(tree, base, entity)
        for fname, fspec in entity["fields"].items():
            dbt_metadata_grammar(tree, base + ("fields", fname), fspec)
        for i, role in enumerate((entity.get("grants") or {}).get("select", [])):
            if not _ROLE.match(role):
                tree.error(E.SpecParseError, model, base + ("grants", "select", i),
                           f"grant role {role!r} is not a plain SQL identifier (dbt writes grantees unquoted)",
                           "use the role's plain name: a letter or underscore, then letters, digits, _ or $")
        rates = entity.get("quarantine") or {}
        if "warn_above" in rates and "error_above" in rates \
                and basis_points(rates["error_above"]) < basis_points(rates["warn_above"]):
            tree.error(E.SpecParseError, model, base + ("quarantine", "error_above"),
                       f"quarantine error_above {rates['error_above']} is below warn_above {rates['warn_above']}: "
                       "the warning could never be reported",
                       "make error_above at least warn_above (equal is allowed), or drop warn_above")
        drift = entity.get("drift") or {}
        if drift.get("min_history", DRIFT_DEFAULTS["min_history"]) > drift.get("window", DRIFT_DEFAULTS["window"]):
            tree.error(E.SpecParseError, model, base + ("drift", "min_history" if "min_history" in drift else "window"),
                       f"drift min_history {drift.get('min_history', DRIFT_DEFAULTS['min_history'])} is more than "
                       f"window {drift.get('window', DRIFT_DEFAULTS['window'])}: no run could ever be judged",
                       "make min_history at most window (the baseline holds at most `window` runs)")
        if "sensitivity" in drift and Decimal(str(drift["sensitivity"])) * 100 % 1:
            tree.error(E.SpecParseError, model, base + ("drift", "sensitivity"),
                       f"drift sensitivity {drift['sensitivity']} has more than two decimals",
                       "round it to hundredths, e.g. 2.5 or 3.25")
        for i, rule in enumerate(entity.get("quality", [])):
            if rule.get("rule") == "expression" and is_reserved(str(rule.get("name"))):
                tree.error(E.SpecParseError, model, base + ("quality", i, "name"),
                           _reserved_message("rule", str(rule["name"])), "choose another rule name")
    namespace(tree)
    for doc in tree.mappings:
        bad = _UNQUOTABLE.search(str(doc.value["source"]))
        if bad:
            tree.error(E.SpecParseError, doc, ("source",),
                       f"source {doc.value['source']!r} contains {bad.group()!r}, which cannot be written inside a "
                       "quoted SQL identifier or a dbt YAML file",
                       "name the bronze relation without quotes, Jinja delimiters or control characters")
        for fname, fspec in doc.value.get("fields", {}).items():
            for i, rule in enumerate(fspec.get("quality", [])):
                rule_grammar(tree, doc, ("fields", fname, "quality", i), rule)


def _reserved_message(what: str, name: str) -> str:
    if in_namespace(name):
        return (f"{what} name `{name}` is in bloomery's own namespace (names starting with `{INTERNAL_PREFIX}` or "
                f"holding `{PLACEHOLDER}`, in any case): bloomery names the columns it adds that way, and a "
                "column of such a name would be read as bloomery's own")
    return f"`{name}` is a reserved name: bloomery adds a column of that name itself (reserved in any case)"


def namespace(tree: SpecTree):
    """No authored name and no bronze column a mapping names is in bloomery's namespace
    (vocabulary.in_namespace). Fields and expression rules are checked above, with the member
    names too; here the other names a spec gives, and the bronze columns a mapping reads or lists."""
    model = tree.model

    def refuse(doc, path, what, name, fix, prefix=""):
        if isinstance(name, str) and in_namespace(name):
            tree.error(E.SpecParseError, doc, path, _reserved_message(what, name), fix, prefix=prefix)

    def too_long(doc, path, what, name):
        if isinstance(name, str) and len(name.encode()) > NAME_MAX_BYTES:
            tree.error(E.SpecParseError, doc, path,
                       f"{what} name `{name[:24]}...` is {len(name.encode())} bytes long; PostgreSQL keeps "
                       f"{NAME_MAX_BYTES} bytes of a name and cuts the rest, so two long names could become one",
                       f"shorten it to at most {NAME_MAX_BYTES} bytes")

    for name, entity in model.value["entities"].items():
        base = ("entities", name)
        refuse(model, base, "entity", name, "rename the entity (and the `target:` of its mappings)")
        too_long(model, base, "entity", name)
        for fname in entity["fields"]:
            too_long(model, base + ("fields", fname), "field", fname)
        for i, rule in enumerate(entity.get("quality", [])):
            too_long(model, base + ("quality", i, "name"), "rule", rule.get("name"))
        for i, rule in enumerate(entity.get("quality", [])):
            if rule.get("rule") != "expression":
                refuse(model, base + ("quality", i, "name"), "rule", rule.get("name"), "choose another rule name")
        for where, spec in [(base, entity)] + [(base + ("fields", f), s) for f, s in entity["fields"].items()]:
            for key in ("tests", "data_tests"):
                for i, entry in enumerate(spec.get(key) or []):
                    test, args = next(iter(entry.items())) if isinstance(entry, dict) and len(entry) == 1 else (entry, None)
                    refuse(model, where + (key, i), "test", test, "name another test")
                    if isinstance(args, dict):
                        refuse(model, where + (key, i, test, "name"), "test", args.get("name"), "choose another test name")
    for i, rel in enumerate(model.value.get("relationships", [])):
        refuse(model, ("relationships", i, "name"), "relationship", rel.get("name"), "rename the relationship")
        too_long(model, ("relationships", i, "name"), "relationship", rel.get("name"))
    for section in ("reconcile", "coverage"):
        for i, check in enumerate(model.value.get(section, []) or []):
            refuse(model, (section, i, "name"), "check", check.get("name"), "rename the check")
            too_long(model, (section, i, "name"), "check", check.get("name"))
    for doc in tree.mappings:
        label = tree.mapping_label(doc)
        bronze_fix = ("rename the bronze column in the loader (or a view over bronze): bloomery cannot tell it "
                      "from a column of its own")
        for section in ("key", "fields"):
            for col, spec in doc.value.get(section, {}).items():
                refuse(doc, (section, col), "mapping column", col, "rename the field", label)
                if isinstance(spec, dict) and isinstance(spec.get("from"), str):
                    refuse(doc, (section, col, "from"), "bronze column", top_column(spec["from"]), bronze_fix, label)
                for i, rule in enumerate(spec.get("quality", []) if isinstance(spec, dict) else []):
                    refuse(doc, (section, col, "quality", i, "name"), "rule", rule.get("name"), "choose another rule name",
                           label)
        for i, path in enumerate(doc.value.get("unmapped", [])):
            refuse(doc, ("unmapped", i), "bronze column", top_column(path), bronze_fix, label)


def dbt_metadata_grammar(tree: SpecTree, base: tuple, spec: dict):
    """The dbt metadata an entity or field passes through to the generated YAML (extension
    keys `description`, `meta`, `owner`, `tags`, `tests`/`data_tests`): what the schema cannot say."""
    model = tree.model
    if "tests" in spec and "data_tests" in spec:
        tree.error(E.SpecParseError, model, base + ("data_tests",),
                   "both `tests` and `data_tests` are given; they are one list under two names",
                   "move every test under one of the two keys")
    meta = spec.get("meta") or {}
    if "owner" in spec and "owner" in meta:
        tree.error(E.SpecParseError, model, base + ("meta", "owner"),
                   "`owner` and `meta.owner` are both given; `owner` is written as `meta.owner`",
                   "keep one of the two")
    for path, problem in _meta_problems(meta, base + ("meta",)):
        tree.error(E.SpecParseError, model, path, problem,
                   "meta holds text, numbers, booleans, lists and maps whose keys are plain names")
    declared = set(model.value.get(SQL_KEYS) or [])
    for key in ("tests", "data_tests"):
        for i, entry in enumerate(spec.get(key) or []):
            for path, problem, hint in _test_problems(entry, base + (key, i)):
                tree.error(E.SpecParseError, model, path, problem, hint)
            for path, shown in limit_problems(entry, base + (key, i)):
                tree.error(E.SpecParseError, model, path,
                           f"a test's `limit` is a row count, got {shown} (dbt writes it into the test's query)",
                           "write a whole number, e.g. `limit: 100`")
            for path, config in relation_configs(entry, base + (key, i)):
                tree.error(E.SpecParseError, model, path,
                           f"a test's `{config}` names the relation dbt stores its failures in, and dbt drops that "
                           "relation first: it could replace a bronze or generated table",
                           f"drop `{config}`: with `store_failures: true` dbt stores them in its own audit schema")
            # a spec is data: SQL it carries into a test runs only where the project says so
            for path, sql_key, why in sql_carriers(entry, base + (key, i)):
                if sql_key not in declared:
                    tree.error(E.SpecParseError, model, path,
                               f"`{sql_key}` carries SQL: {why}, and a spec key runs no SQL unless the project "
                               f"says so", f"if this SQL is meant to run, add `{SQL_KEYS}: [{sql_key}]` at the top "
                               f"of the entity model (this spec key carries SQL; docs/extending-models.md); "
                               f"otherwise drop it")


def rule_grammar(tree: SpecTree, doc, path, rule):
    kind = rule["rule"]
    if kind in ("range", "length"):
        bounds = [b for b in ("min", "max") if b in rule]
        if not bounds:  # the schema says so too
            tree.error(E.SpecParseError, doc, path, f"`{kind}` needs `min`, `max` or both",
                       f"write {{rule: {kind}, min: 0, on_fail: ...}}")
        if kind == "range":
            for b in bounds:
                value = rule[b]
                if isinstance(value, bool) or not _bound_ok(value):
                    tree.error(E.SpecParseError, doc, path + (b,),
                               f"range bound {_show(value)} is not an integer, an exact decimal or a valid ISO "
                               "date/timestamp",
                               'write 0, "12.50", "2015-01-01" or "2015-01-01T00:00:00" (no nan, inf or exponent)')
                    return
            if len(bounds) == 2 and _bounds_reversed(rule["min"], rule["max"]):
                tree.error(E.SpecParseError, doc, path,
                           f"range `min` {_show(rule['min'])} is above `max` {_show(rule['max'])}: every value would fail",
                           "swap the bounds")
        elif len(bounds) == 2 and rule["min"] > rule["max"]:
            tree.error(E.SpecParseError, doc, path,
                       f"length `min` {rule['min']} is above `max` {rule['max']}: every value would fail",
                       "swap the bounds")
    elif kind == "pattern":
        try:
            check_portable_regex(rule["regex"])
        except PortableRegexError as exc:
            tree.error(E.SpecParseError, doc, path + ("regex",), str(exc),
                       "pattern accepts a portable regex subset, anchored with ^...$")
        except (RecursionError, ValueError, OverflowError) as exc:
            tree.error(E.SpecParseError, doc, path + ("regex",), f"the pattern cannot be read: {exc}",
                       "pattern accepts a portable regex subset, anchored with ^...$")
