"""From spec files to one resolved, dialect-free description per entity.

Stages, each collecting its errors before the next runs (so a user sees every problem of a
kind at once, without cascades from an earlier one):

  parse      YAML, document kinds, JSON Schema, grammars the schema cannot say
  resolve    mappings to entities and fields, relationships, canonical links, merged entities
  typecheck  declared types, transform chains (transforms/chain.py)
  guardrail  everything else decidable from the spec alone, and rule resolution
             (implicit `coercible`, generated names, forced dispositions), reconcile and
             coverage checks

The output (`ProjectIR`) is what the emitter turns into dbt files; the macros render it.
"""
from __future__ import annotations

import difflib
import json
import gc
import re
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, Callable

from . import errors as E
from .errors import BloomeryError, ErrorSink, Location
from .guardrails.charset import CHARSET_MAX, _CharsetError, _codepoints
from .guardrails.literals import (_bound_literal, _bound_ok, _bounds_reversed, _enum_admissible, _iso_date,
                                 _iso_timestamp)
from .guardrails.pattern import PATTERN_MAX_POSITIONS, _pattern_positions
from .resolve.ir import Disposition, ProjectIR, materialization  # noqa: F401 (re-exported until the split lands)
from .resolve.naming import assert_name, rule_name, unique_name
from .rules.regex_subset import PortableRegexError, check_portable_regex
from .spec.dbt_metadata import _dbt_metadata, _meta_problems, _show, _test_problems
from .spec.documents import SpecDocument, discover_specs, read_document
from .spec.yaml_source import format_path
from .transforms.chain import NULLIFYING, ChainError, Lowered, lower_chain
from .transforms.types import SpecType, parse_type, type_problem
from .vocabulary import METADATA, RESERVED, UNKNOWN_MEMBER

RETENTION_HOURS = {"h": 1, "d": 24, "w": 168}
FRESHNESS_PERIOD = {"m": "minute", "h": "hour", "d": "day", "w": "day"}
FRESHNESS_MINUTES = {"m": 1, "h": 60, "d": 1440, "w": 10080}
RECONCILE_AGGS = ("avg", "count", "max", "min", "sum")
# What cannot sit inside a quoted SQL identifier as written: the shipped dialects quote with " or `
# and dbt's adapter.quote does not escape either; control characters have no place in a name.
# Nor a Jinja delimiter: dbt renders names in the YAML it reads (a source's name among them).
_UNQUOTABLE = re.compile(r'["`\x00-\x1f\x7f]|\{\{|\{%|\{#')
_ROLE = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]*$")   # dbt writes grantees unquoted
_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_RECONCILE_AGG_SIDE = re.compile(
    rf"^(?P<agg>[A-Za-z_]+)\s*\(\s*(?P<entity>{_IDENT})\s*\.\s*(?P<column>{_IDENT})\s*\)\s+by\s+(?P<by>.+)$")
_RECONCILE_BARE_SIDE = re.compile(rf"^(?P<entity>{_IDENT})\s*\.\s*(?P<column>{_IDENT})$")


def check_project(specs_dir: Path) -> ProjectIR:
    """Compile a spec tree; raise BloomeryErrors with every error found, sorted by location."""
    # A compile builds many small objects (YAML nodes, documents, IR) and frees almost none
    # until it returns, so the cyclic collector's passes over them are pure cost: about a
    # quarter of a large tree's check. Paused for the compile, restored as it was.
    paused = gc.isenabled()
    gc.disable()
    try:
        return _Compiler(specs_dir).run()
    finally:
        if paused:
            gc.enable()


# ----------------------------------------------------------------------------------------------
class _Compiler:
    def __init__(self, specs_dir: Path):
        self.specs_dir = Path(specs_dir)
        self.sink = ErrorSink()
        self.model: SpecDocument | None = None
        self.mappings: list[SpecDocument] = []
        self.catalog: SpecDocument | None = None

    # -- helpers -------------------------------------------------------------------------------
    def error(self, cls, doc: SpecDocument, path: tuple, message: str, hint: str | None = None, prefix=""):
        self.sink.add(cls(message, doc.at(*path, prefix=prefix), hint))

    @staticmethod
    def mapping_label(doc: SpecDocument) -> str:
        v = doc.value
        return f"mapping[{v.get('source')}->{v.get('target')}]"

    def stage_done(self):
        self.sink.raise_if_any()

    def locator(self) -> Callable[[str], Location]:
        by_label = {self.mapping_label(d): d for d in self.mappings}
        model = self.model

        def locate(text: str) -> Location:
            doc, rest = model, text
            m = re.match(r"^(mapping\[[^\]]*\])\.?(.*)$", text)
            if m and m.group(1) in by_label:
                doc, rest = by_label[m.group(1)], m.group(2)
            location = doc.yaml.location(_parse_path(rest))
            return Location(location.file, location.line, location.column, text)

        return locate

    # -- run -------------------------------------------------------------------------------------
    def run(self) -> ProjectIR:
        self.load()
        self.stage_done()
        self.parse_semantics()
        self.stage_done()
        entities = self.resolve()
        self.stage_done()
        lowered = self.typecheck(entities)
        self.stage_done()
        project = self.build(entities, lowered)
        self.stage_done()
        return project

    # -- parse -----------------------------------------------------------------------------------
    def load(self):
        if not self.specs_dir.is_dir():
            self.sink.add(E.SpecParseError(f"specs directory {self.specs_dir} does not exist",
                                           Location(str(self.specs_dir)), "pass --specs DIR, the folder holding the spec files"))
            return
        def show(path: Path) -> str:
            return str(path.relative_to(self.specs_dir.parent)) if self.specs_dir.parent != path else str(path)

        # a spec symlinked in from outside the folder is refused here, never read
        paths, refused = discover_specs(self.specs_dir, show)
        self.sink.extend(refused)
        for path in paths:
            doc, errs = read_document(path, show(path))
            self.sink.extend(errs)
            if doc is None:
                continue
            if doc.kind == "entity_model":
                if self.model is not None:
                    self.error(E.SpecParseError, doc, ("spec_version",),
                               f"a second entity model; the first is {self.model.file}",
                               "keep exactly one `spec_version: 1` document per project")
                else:
                    self.model = doc
            elif doc.kind == "mapping":
                self.mappings.append(doc)
            elif doc.kind == "catalog":
                if self.catalog is not None:
                    self.error(E.SpecParseError, doc, ("catalog_version",), "a second catalog",
                               f"keep at most one catalog; the first is {self.catalog.file}")
                else:
                    self.catalog = doc
        if self.model is None and not self.sink.errors:
            self.sink.add(E.SpecParseError(
                "no entity model found (a document with `spec_version: 1`)",
                Location(str(self.specs_dir)), "add entity_model.yaml with `spec_version: 1` and `entities:`"))

    def parse_semantics(self):
        """Grammar the JSON Schema cannot express: reserved names, type strings, bounds, regexes."""
        model = self.model
        for name, entity in model.value["entities"].items():
            base = ("entities", name)
            for fname, fspec in entity["fields"].items():
                if fname in RESERVED:  # also refused by the schema; kept for callers that skip it
                    self.error(E.SpecParseError, model, base + ("fields", fname),
                               f"`{fname}` is a reserved name", "rename the field")
                bad = _UNQUOTABLE.search(fname)
                if bad:
                    self.error(E.SpecParseError, model, base + ("fields", fname),
                               f"field name {fname!r} contains {bad.group()!r}, which cannot be written inside a quoted "
                               "SQL identifier or a dbt YAML file", "rename the field: letters, digits, underscores")
                problem = type_problem(fspec["type"])
                if problem and problem[0] == "grammar":
                    self.error(E.SpecParseError, model, base + ("fields", fname, "type"), problem[1],
                               "decimal(p,s) needs 1 <= p <= 38 and s <= p, e.g. decimal(12,4)")
            self.dbt_metadata_grammar(base, entity)
            for fname, fspec in entity["fields"].items():
                self.dbt_metadata_grammar(base + ("fields", fname), fspec)
            for i, role in enumerate((entity.get("grants") or {}).get("select", [])):
                if not _ROLE.match(role):
                    self.error(E.SpecParseError, model, base + ("grants", "select", i),
                               f"grant role {role!r} is not a plain SQL identifier (dbt writes grantees unquoted)",
                               "use the role's plain name: a letter or underscore, then letters, digits, _ or $")
            rates = entity.get("quarantine") or {}
            if "warn_above" in rates and "error_above" in rates \
                    and _basis_points(rates["error_above"]) < _basis_points(rates["warn_above"]):
                self.error(E.SpecParseError, model, base + ("quarantine", "error_above"),
                           f"quarantine error_above {rates['error_above']} is below warn_above {rates['warn_above']}: "
                           "the warning could never be reported",
                           "make error_above at least warn_above (equal is allowed), or drop warn_above")
            drift = entity.get("drift") or {}
            if drift.get("min_history", DRIFT_DEFAULTS["min_history"]) > drift.get("window", DRIFT_DEFAULTS["window"]):
                self.error(E.SpecParseError, model, base + ("drift", "min_history" if "min_history" in drift else "window"),
                           f"drift min_history {drift.get('min_history', DRIFT_DEFAULTS['min_history'])} is more than "
                           f"window {drift.get('window', DRIFT_DEFAULTS['window'])}: no run could ever be judged",
                           "make min_history at most window (the baseline holds at most `window` runs)")
            if "sensitivity" in drift and Decimal(str(drift["sensitivity"])) * 100 % 1:
                self.error(E.SpecParseError, model, base + ("drift", "sensitivity"),
                           f"drift sensitivity {drift['sensitivity']} has more than two decimals",
                           "round it to hundredths, e.g. 2.5 or 3.25")
            for i, rule in enumerate(entity.get("quality", [])):
                if rule.get("rule") == "expression" and rule.get("name") in RESERVED:
                    self.error(E.SpecParseError, model, base + ("quality", i, "name"),
                               f"`{rule['name']}` is a reserved name", "choose another rule name")
        for doc in self.mappings:
            bad = _UNQUOTABLE.search(str(doc.value["source"]))
            if bad:
                self.error(E.SpecParseError, doc, ("source",),
                           f"source {doc.value['source']!r} contains {bad.group()!r}, which cannot be written inside a "
                           "quoted SQL identifier or a dbt YAML file",
                           "name the bronze relation without quotes, Jinja delimiters or control characters")
            for fname, fspec in doc.value.get("fields", {}).items():
                for i, rule in enumerate(fspec.get("quality", [])):
                    self.rule_grammar(doc, ("fields", fname, "quality", i), rule)

    def dbt_metadata_grammar(self, base: tuple, spec: dict):
        """The dbt metadata an entity or field passes through to the generated YAML (extension
        keys `description`, `meta`, `owner`, `tags`, `tests`/`data_tests`): what the schema cannot say."""
        model = self.model
        if "tests" in spec and "data_tests" in spec:
            self.error(E.SpecParseError, model, base + ("data_tests",),
                       "both `tests` and `data_tests` are given; they are one list under two names",
                       "move every test under one of the two keys")
        meta = spec.get("meta") or {}
        if "owner" in spec and "owner" in meta:
            self.error(E.SpecParseError, model, base + ("meta", "owner"),
                       "`owner` and `meta.owner` are both given; `owner` is written as `meta.owner`",
                       "keep one of the two")
        for path, problem in _meta_problems(meta, base + ("meta",)):
            self.error(E.SpecParseError, model, path, problem,
                       "meta holds text, numbers, booleans, lists and maps whose keys are plain names")
        for key in ("tests", "data_tests"):
            for i, entry in enumerate(spec.get(key) or []):
                for path, problem, hint in _test_problems(entry, base + (key, i)):
                    self.error(E.SpecParseError, model, path, problem, hint)

    def rule_grammar(self, doc, path, rule):
        kind = rule["rule"]
        if kind in ("range", "length"):
            bounds = [b for b in ("min", "max") if b in rule]
            if not bounds:  # the schema says so too
                self.error(E.SpecParseError, doc, path, f"`{kind}` needs `min`, `max` or both",
                           f"write {{rule: {kind}, min: 0, on_fail: ...}}")
            if kind == "range":
                for b in bounds:
                    value = rule[b]
                    if isinstance(value, bool) or not _bound_ok(value):
                        self.error(E.SpecParseError, doc, path + (b,),
                                   f"range bound {_show(value)} is not an integer, an exact decimal or a valid ISO "
                                   "date/timestamp",
                                   'write 0, "12.50", "2015-01-01" or "2015-01-01T00:00:00" (no nan, inf or exponent)')
                        return
                if len(bounds) == 2 and _bounds_reversed(rule["min"], rule["max"]):
                    self.error(E.SpecParseError, doc, path,
                               f"range `min` {_show(rule['min'])} is above `max` {_show(rule['max'])}: every value would fail",
                               "swap the bounds")
            elif len(bounds) == 2 and rule["min"] > rule["max"]:
                self.error(E.SpecParseError, doc, path,
                           f"length `min` {rule['min']} is above `max` {rule['max']}: every value would fail",
                           "swap the bounds")
        elif kind == "pattern":
            try:
                check_portable_regex(rule["regex"])
            except PortableRegexError as exc:
                self.error(E.SpecParseError, doc, path + ("regex",), str(exc),
                           "pattern accepts a portable regex subset, anchored with ^...$")
            except (RecursionError, ValueError, OverflowError) as exc:
                self.error(E.SpecParseError, doc, path + ("regex",), f"the pattern cannot be read: {exc}",
                           "pattern accepts a portable regex subset, anchored with ^...$")

    # -- resolve ---------------------------------------------------------------------------------
    def resolve(self) -> dict[str, list[SpecDocument]]:
        model = self.model
        entities = model.value["entities"]
        broken_keys = set()  # entities whose key names a non-field: mapping key checks would only echo it
        for name, entity in entities.items():
            for i, col in enumerate(entity["key"]):
                if col not in entity["fields"]:
                    broken_keys.add(name)
                    close = difflib.get_close_matches(col, entity["fields"], n=1)
                    self.error(E.MissingReference, model, ("entities", name, "key", i),
                               f"key column `{col}` of entity `{name}` is not one of its fields",
                               f"did you mean `{close[0]}`?" if close else f"declare `{col}` under entities.{name}.fields")
        self.check_canonical()
        self.check_relationships()
        by_entity: dict[str, list[SpecDocument]] = {}
        for doc in sorted(self.mappings, key=lambda d: (str(d.value["source"]), d.file)):
            v = doc.value
            label = self.mapping_label(doc)
            target = v["target"]
            if target not in entities:
                close = difflib.get_close_matches(target, entities, n=1)
                self.error(E.MissingReference, doc, ("target",), f"mapping target `{target}` is not an entity",
                           f"did you mean `{close[0]}`?" if close else "declare it under `entities:`", prefix=label)
                continue
            entity = entities[target]
            fields = entity["fields"]
            key = v.get("key", {})
            mapped = v.get("fields", {})
            for section, block in (("key", key), ("fields", mapped)):
                for col in block:
                    if col not in fields:
                        close = difflib.get_close_matches(col, fields, n=1)
                        self.error(E.MissingReference, doc, (section, col),
                                   f"`{col}` is not a field of entity `{target}`",
                                   f"did you mean `{close[0]}`?" if close else f"declare it under entities.{target}.fields",
                                   prefix=label)
            for col in key if target not in broken_keys else ():
                if col in fields and col not in entity["key"]:
                    self.error(E.ResolutionError, doc, ("key", col),
                               f"`{col}` is under `key:` but is not part of entity `{target}`'s key {entity['key']}",
                               "move it under `fields:`", prefix=label)
            for col in entity["key"]:
                if col in fields and col not in key:
                    self.error(E.ResolutionError, doc, ("key",),
                               f"entity key column `{col}` is not mapped under `key:`",
                               f"add `{col}: {{from: \"$.<column>\"}}` under key", prefix=label)
            for col in mapped:
                if col in key:
                    self.error(E.ResolutionError, doc, ("fields", col),
                               f"`{col}` is mapped under both `key:` and `fields:`", "keep it under `key:`", prefix=label)
            same_source = [d for d in by_entity.get(target, []) if d.value["source"] == v["source"]]
            if same_source:
                self.error(E.ResolutionError, doc, ("source",),
                           f"two mappings of entity `{target}` read source `{v['source']}` (the other is "
                           f"{same_source[0].file}); a merged entity unions different sources",
                           "merge them into one mapping", prefix=label)
                continue
            by_entity.setdefault(target, []).append(doc)
        for name, docs in by_entity.items():
            if len(docs) < 2:
                continue
            entity = entities[name]
            # A merged entity may carry dedupe, quarantine and quality rules (product page): each
            # staged row records the mapping that produced it, the reject table keeps it, replay
            # re-runs that mapping, and a key delivered by two mappings is dedupe's to decide or
            # the blocking `<entity>_source_collision` audit's to refuse.
            # `required` is metadata, checked only here: a union must not leave a required
            # column NULL for every row of one of its sources.
            for fname, fspec in entity["fields"].items():
                if not fspec.get("required") or fname in entity["key"]:
                    continue
                for doc in docs:
                    if fname not in doc.value.get("fields", {}):
                        self.error(E.ResolutionError, doc, ("fields",),
                                   f"`{fname}` is required on merged entity `{name}`, but this mapping does not map it",
                                   f"map `{fname}` here, or drop `required: true` from the field",
                                   prefix=self.mapping_label(doc))
        return by_entity

    def check_canonical(self):
        catalog_fields = (self.catalog.value.get("canonical_fields") or {}) if self.catalog else {}
        for name, entity in self.model.value["entities"].items():
            for fname, fspec in entity["fields"].items():
                link = fspec.get("canonical")
                if link is None or link in catalog_fields:
                    continue
                path = ("entities", name, "fields", fname, "canonical")
                if self.catalog is None:
                    self.error(E.MissingReference, self.model, path,
                               f"`{fname}` links to canonical field `{link}`, but the project has no catalog",
                               "add a catalog (`catalog_version: 1`) declaring it, or drop `canonical:`")
                    continue
                close = difflib.get_close_matches(link, catalog_fields, n=1)
                self.error(E.MissingReference, self.model, path,
                           f"`{fname}` links to canonical field `{link}`, which the catalog ({self.catalog.file}) "
                           "does not declare", f"did you mean `{close[0]}`?" if close else
                           "declare it under the catalog's `canonical_fields:`, or drop `canonical:`")

    def check_relationships(self):
        model = self.model
        entities = model.value["entities"]
        for i, rel in enumerate(model.value.get("relationships", [])):
            ok = True
            for side in ("from", "to"):
                if rel[side] not in entities:
                    ok = False
                    close = difflib.get_close_matches(rel[side], entities, n=1)
                    self.error(E.MissingReference, model, ("relationships", i, side),
                               f"relationship `{rel['name']}` names unknown entity `{rel[side]}`",
                               f"did you mean `{close[0]}`?" if close else "declare it under `entities:`")
            if not ok:
                continue
            for fcol, tcol in rel["via"].items():
                for side, col in (("from", fcol), ("to", tcol)):
                    fields = entities[rel[side]]["fields"]
                    if col not in fields:
                        close = difflib.get_close_matches(col, fields, n=1)
                        self.error(E.MissingReference, model, ("relationships", i, "via", fcol),
                                   f"relationship `{rel['name']}`: `{col}` is not a field of `{rel[side]}`",
                                   f"did you mean `{close[0]}`?" if close else None)

    def joins_quality(self, name, docs, ignore_dedupe=True) -> bool:
        entity = self.model.value["entities"][name]
        if entity.get("quality") or entity.get("quarantine"):
            return True
        if not ignore_dedupe and entity.get("dedupe"):
            return True
        return any(f.get("quality") for d in docs for f in d.value.get("fields", {}).values())

    # -- typecheck -------------------------------------------------------------------------------
    def typecheck(self, by_entity) -> dict:
        entities = self.model.value["entities"]
        for name, entity in entities.items():
            for fname, fspec in entity["fields"].items():
                problem = type_problem(fspec["type"])
                if problem:  # grammar problems stopped the parse stage: this is the precision cap
                    self.error(E.TypeCheckError, self.model, ("entities", name, "fields", fname, "type"), problem[1],
                               "use at most decimal(38,s)")
        lowered: dict = {}
        for name, docs in by_entity.items():
            fields = entities[name]["fields"]
            for doc in docs:
                label = self.mapping_label(doc)
                for section in ("key", "fields"):
                    for col, spec in doc.value.get(section, {}).items():
                        declared = parse_type(fields[col]["type"]) if col in fields else None
                        if declared is None:
                            continue
                        try:
                            low = lower_chain(spec.get("transform", []), declared)
                        except ChainError as exc:
                            path = (section, col, "transform") + ((exc.index,) if exc.index is not None else ())
                            cls = (E.SpecParseError if exc.malformed else
                                   E.UnknownTransformError if exc.unknown else E.TypeCheckError)
                            self.error(cls, doc, path, exc.message, exc.hint, prefix=label)
                            continue
                        lowered[(id(doc), col)] = low
        return lowered

    # -- guardrails and rule resolution -------------------------------------------------------
    def build(self, by_entity, lowered) -> ProjectIR:
        model = self.model.value
        relationships = self.unique_relationships()
        project = ProjectIR(entities={}, relationships=list(relationships.values()), locate=self.locator())
        for name in sorted(model["entities"]):
            docs = by_entity.get(name, [])
            ir = self.entity_ir(name, docs, lowered, relationships, by_entity)
            # An entity no mapping feeds is still checked, but builds no relation.
            if ir is not None and docs:
                project.entities[name] = ir
        for doc in self.mappings:
            v = doc.value
            if v["target"] not in project.entities:
                continue
            ir = project.entities[v["target"]]
            source = {"name": v["source"], "entities": [v["target"]]}
            if "freshness" in v:
                if not ir["metadata"]:
                    self.error(E.FreshnessWithoutIngestionMetadata, doc, ("freshness",),
                               f"freshness reads `_ingested_at`, but entity `{v['target']}` declares neither "
                               "`quarantine:` nor `dedupe:`, so bronze need not carry it",
                               "declare dedupe: or quarantine: on the entity, or drop freshness", prefix=self.mapping_label(doc))
                fresh = v["freshness"]
                # dbt reports error over warn: an error threshold below the warning one would make
                # the warning unreachable, which is a typo, not a policy
                if "warn_after" in fresh and "error_after" in fresh \
                        and _minutes(fresh["error_after"]) < _minutes(fresh["warn_after"]):
                    self.error(E.GuardrailError, doc, ("freshness", "error_after"),
                               f"freshness error_after {fresh['error_after']} is shorter than warn_after "
                               f"{fresh['warn_after']}: the warning could never be reported",
                               "make error_after at least warn_after (equal is allowed), or drop warn_after",
                               prefix=self.mapping_label(doc))
                source["freshness"] = {k: _duration(val) for k, val in fresh.items()}
            # one bronze relation feeding several entities is one dbt source, with one freshness
            shared = next((s for s in project.sources if s["name"] == v["source"]), None)
            if shared is None:
                project.sources.append(source)
                continue
            if "freshness" in source and shared.setdefault("freshness", source["freshness"]) != source["freshness"]:
                self.error(E.GuardrailError, doc, ("freshness",),
                           f"`{v['source']}` also feeds entity `{shared['entities'][0]}`, with another freshness; "
                           "a bronze relation has one freshness", "declare the same freshness on every mapping "
                           "of this source, or on one of them", prefix=self.mapping_label(doc))
            shared["entities"].append(v["target"])
        project.sources.sort(key=lambda s: s["name"])
        # Referential rules may form a cycle: emit cuts it deterministically (docs/design.md).
        project.reconcile = self.reconcile_irs(by_entity)
        project.coverage = self.coverage_irs(by_entity, relationships)
        project.files = sorted([self.model.file] + [d.file for d in self.mappings]
                               + ([self.catalog.file] if self.catalog else []))
        return project

    def unique_relationships(self) -> dict[str, dict]:
        out: dict[str, dict] = {}
        for i, rel in enumerate(self.model.value.get("relationships", [])):
            if rel["name"] in out:
                self.error(E.GuardrailError, self.model, ("relationships", i, "name"),
                           f"a second relationship named `{rel['name']}`: rules and checks could not tell them apart",
                           "rename one of them")
                continue
            out[rel["name"]] = rel
        return out

    def entity_ir(self, name, docs, lowered, relationships, by_entity) -> dict | None:
        model = self.model
        entity = model.value["entities"][name]
        base = ("entities", name)
        quality = self.joins_quality(name, docs)
        dedupe = entity.get("dedupe")
        quarantine = entity.get("quarantine")
        metadata = bool(dedupe or quarantine)
        fields = entity["fields"]
        types = {f: parse_type(spec["type"]) for f, spec in fields.items()}
        known_columns = list(fields) + (list(METADATA) if metadata else [])

        # ingestion metadata must be declared by every mapping of a dedupe/quarantine entity
        for doc in docs:
            paths = set(doc.value.get("unmapped", []))
            for section in ("key", "fields"):
                paths.update(s.get("from") for s in doc.value.get(section, {}).values())
            missing = [m for m in METADATA if f"$.{m}" not in paths]
            if metadata and missing:
                self.error(E.IngestionMetadataMissing, doc, ("unmapped",),
                           f"entity `{name}` declares {'dedupe' if dedupe else 'quarantine'}, so bronze must carry "
                           f"ingestion metadata; missing: {', '.join(missing)}",
                           'add ' + ", ".join(f'"$.{m}"' for m in missing) + " to `unmapped:`",
                           prefix=self.mapping_label(doc))

        dedupe_cols: list[str] = []
        if dedupe:
            if not dedupe.get("tie_break"):
                self.error(E.DedupeTieBreakMissing, model, base + ("dedupe",),
                           "dedupe keep: latest_by needs `tie_break`: without it two rows sharing a "
                           f"`{dedupe['field']}` make the surviving row arbitrary",
                           "add tie_break: [_load_id] (or another column that orders ties)")
            dedupe_cols = [dedupe["field"]] + list(dedupe.get("tie_break") or [])
            for i, col in enumerate(dedupe_cols):
                if col not in fields and col not in METADATA:
                    path = base + ("dedupe", "field") if i == 0 else base + ("dedupe", "tie_break", i - 1)
                    close = difflib.get_close_matches(col, known_columns, n=1)
                    self.error(E.GuardrailError, model, path, f"dedupe column `{col}` is not a field of `{name}` "
                               "nor an ingestion metadata column (_load_id, _ingested_at, _source_row_id)",
                               f"did you mean `{close[0]}`?" if close else None)

        folded: dict[str, str] = {}
        for fname in fields:
            first = folded.setdefault(fname.lower(), fname)
            if first != fname:
                self.error(E.GuardrailError, model, base + ("fields", fname),
                           f"fields `{first}` and `{fname}` differ only in case: DuckDB, and every engine for "
                           "unquoted names, reads them as one column, so one value would be lost", "rename one of them")
        for i, expr in enumerate(entity.get("partition_by", [])):
            col, path = _inner(expr), base + ("partition_by", i)
            if col not in known_columns:
                close = difflib.get_close_matches(col, known_columns, n=1)
                self.error(E.GuardrailError, model, path, f"partition column `{col}` is not a column of `{name}`",
                           f"did you mean `{close[0]}`?" if close else "name one of the entity's fields")
            elif "(" in expr and col in types:
                allowed = ("timestamp",) if expr.strip().startswith("hours(") else ("date", "timestamp")
                if types[col].name not in allowed:
                    self.error(E.GuardrailError, model, path, f"`{expr}` buckets `{col}` by time, but `{col}` is {types[col]}",
                               f"partition by `{col}` itself, or bucket a {' or '.join(allowed)} field")
        if entity.get("scd") == "type2" and len(entity["key"]) > 1:
            self.error(E.GuardrailError, model, base + ("key",),
                       f"entity `{name}` is `scd: type2`, kept as a dbt snapshot, which is keyed on one column; "
                       f"this key has {len(entity['key'])}: {', '.join(entity['key'])}",
                       "key the entity on one column (build a surrogate key upstream), or use scd: type1")

        mapping_irs = []
        rules: list[dict] = []
        generated: list[str] = []
        # On a merged entity a field rule judges the rows of the mapping that declares it (it sits
        # beside that mapping's transform), so it carries `mappings`; the same rule declared by
        # several mappings (every implicit `coercible` of a column they all map) is one rule.
        seen: dict | None = {} if len(docs) > 1 else None
        for doc in docs:
            mir = self.mapping_ir(name, entity, doc, lowered, quarantine)
            mapping_irs.append(mir)
            if quality:
                rules += self.field_rules(name, entity, doc, lowered, types, dedupe_cols, generated,
                                          scope=mir["mapping"] if seen is not None else None, seen=seen)
        for i, rule in enumerate(entity.get("quality", [])):
            if rule["rule"] == "referential":
                r = self.referential_rule(name, entity, i, rule, relationships, types, rules, by_entity)
                if r:
                    r["name"] = unique_name(r["name"], generated)
                    rules.append(r)
        authored = set()
        for i, rule in enumerate(entity.get("quality", [])):
            if rule["rule"] != "expression":
                continue
            path = base + ("quality", i)
            if rule["name"] in generated:
                self.error(E.GuardrailError, model, path + ("name",),
                           f"rule name `{rule['name']}` is already the generated name of another rule of `{name}`",
                           "choose a different name for the expression rule")
                continue
            if rule["name"] in authored:
                self.error(E.GuardrailError, model, path + ("name",), f"duplicate rule name `{rule['name']}` in `{name}`",
                           "give each expression rule its own name")
                continue
            authored.add(rule["name"])
            from .rules.expression import ExpressionError, check_expression  # sqlglot: only when needed
            try:
                checked = check_expression(rule["expr"], known_columns,
                                           [c for c in known_columns if c in types and types[c].name == "bool"])
            except ExpressionError as exc:
                self.error(E.GuardrailError, model, path + ("expr",), str(exc),
                           "one boolean condition over the entity's own columns, e.g. `discount <= unit_price`")
                continue
            except (RecursionError, ValueError, TypeError) as exc:  # sqlglot on pathological input
                self.error(E.GuardrailError, model, path + ("expr",), f"expr cannot be parsed as SQL ({type(exc).__name__})",
                           "one boolean condition over the entity's own columns, e.g. `discount <= unit_price`")
                continue
            rules.append({"name": rule["name"], "rule": "expression", "column": None,
                          "disposition": rule["on_fail"], "template": checked.template,
                          "columns": list(checked.columns), "path": _fmt(path)})

        if any(r["disposition"] == "quarantine" for r in rules) and not quarantine:
            first = next(r for r in rules if r["disposition"] == "quarantine")
            implicit = " (implicit: every mapped column of a quality entity gets one)" if first.get("implicit") else ""
            self.error(E.QuarantineRetentionMissing, model, base,
                       f"rule `{first['name']}`{implicit} can quarantine rows of `{name}`, but the entity has no "
                       "`quarantine:` block saying how long rejected rows are kept",
                       "add quarantine: {retention: 90d}")
        if quarantine:
            self.check_redaction(name, entity, quarantine, docs)
        if docs:
            self.check_classification(name, entity, mapping_irs)
        self.check_asserts(name, entity, docs)

        rules.sort(key=lambda r: r["name"])
        return {
            "entity": name,
            "grain": entity["grain"],
            "key": list(entity["key"]),
            "scd": entity.get("scd", "type1"),
            # full: every build judges all of bronze; incremental_by_key / incremental_by_partition:
            # a build judges what the ledger does not hold (by_partition judges like by_key)
            "materialization": materialization(entity),
            "quality": quality,
            "metadata": metadata,
            "columns": [{"name": f, "type": _type_ir(types[f]), "key": f in entity["key"]} for f in fields],
            "mappings": mapping_irs,
            "dedupe": {"order": [{"column": c, "metadata": c in METADATA and c not in fields} for c in dedupe_cols]}
                      if dedupe else None,
            "quarantine": {"retention": quarantine["retention"],
                           "retention_hours": _hours(quarantine["retention"]),
                           "redact": sorted({_top(p) for p in quarantine.get("redact", [])}),
                           # the quarantine-rate test's thresholds, in basis points (computed here:
                           # never spec text in SQL); warn by default on any quarantined row, fail
                           # only when the spec says so
                           "warn_above_bp": _basis_points(quarantine.get("warn_above", "0%")),
                           "error_above_bp": _basis_points(quarantine["error_above"])
                                             if "error_above" in quarantine else None}
                          if quarantine else None,
            "rules": rules,
            # the drift tests' settings (quality over time), as numbers computed here: never spec
            # text in SQL. Only the quality_drift model and its tests read them (emit keeps them
            # out of the entity's models)
            "drift": _drift(entity.get("drift") or {}),
            # what `<entity>_bronze_schema` reports of a bronze column gained, lost or retyped
            "schema_changes": entity.get("schema_changes", "warn"),
            "grants": entity.get("grants"),
            "partition_by": [_inner(p) for p in entity.get("partition_by", [])],
            # one per partition_by item: the time bucket a `unique` slice compares, None for a bare column
            "partition_buckets": [_bucket(p) for p in entity.get("partition_by", [])],
            "asserts": self.assert_irs(name, entity),
            # dbt metadata for the generated YAML only (descriptions, meta, tags, the user's tests);
            # the emitter keeps it out of the models' Jinja literal, which the macros read
            "docs": dict(_dbt_metadata(entity), columns={f: _dbt_metadata(entity["fields"][f]) for f in fields}),
        }

    def mapping_ir(self, name, entity, doc, lowered, quarantine) -> dict:
        v = doc.value
        label = self.mapping_label(doc)
        columns = []
        read = set()
        for section in ("key", "fields"):
            for col, spec in v.get(section, {}).items():
                low: Lowered | None = lowered.get((id(doc), col))
                if low is None:
                    continue
                column, json_path = _split_path(spec["from"])
                read.add(column)
                columns.append({"name": col, "source_column": column, "json_path": json_path,
                                "steps": low.steps, "nullifying": low.nullifying, "casts": low.casts,
                                "path": f"{label}.{_fmt((section, col))}"})
        raw = set(read) | {_top(p) for p in v.get("unmapped", [])}
        if quarantine:
            # case-insensitively: on DuckDB (and for unquoted names everywhere) `Notes` is `notes`,
            # and a redaction that missed a spelling would keep the payload it exists to drop
            redacted = {_top(p).lower() for p in quarantine.get("redact", [])}
            raw = {c for c in raw if c.lower() not in redacted}
        return {"source": v["source"], "mapping": f"{v['source']}->{name}", "mapping_version": 1,
                "columns": columns, "raw_columns": sorted(raw), "read_columns": sorted(read),
                "unmapped": sorted(_top(p) for p in v.get("unmapped", []))}

    def field_rules(self, name, entity, doc, lowered, types, dedupe_cols, generated, scope=None, seen=None) -> list[dict]:
        label = self.mapping_label(doc)
        out = []

        def add(base: str, rule: dict):
            if scope is not None:
                same = (base, json.dumps({k: v for k, v in rule.items() if k != "path"}, sort_keys=True, default=str))
                if same in seen:
                    seen[same]["mappings"].append(scope)
                    return
                seen[same] = rule
                rule["mappings"] = [scope]
            rule["name"] = unique_name(base, generated)
            out.append(rule)
        for section in ("key", "fields"):
            for col, spec in doc.value.get(section, {}).items():
                low: Lowered | None = lowered.get((id(doc), col))
                if low is None:
                    continue
                ctype = types[col]
                explicit_coercible = False
                for i, rule in enumerate(spec.get("quality", []) if section == "fields" else []):
                    path = (section, col, "quality", i)
                    kind = rule["rule"]
                    disposition = rule["on_fail"]
                    if kind == "coercible":
                        explicit_coercible = True
                        if col in dedupe_cols and Disposition.of(disposition) < Disposition.FAIL:
                            self.error(E.DedupeDispositionConflict, doc, path + ("on_fail",),
                                       f"`{col}` orders dedupe, so a value that will not cast would leave the surviving "
                                       f"row undefined; its coercible rule must be `fail`, not `{disposition}`",
                                       "write on_fail: fail, or drop the rule (it is implied)", prefix=label)
                        elif low.nullifying and col not in dedupe_cols:
                            nullifier = next(n for n in low.names if n in NULLIFYING)
                            self.error(E.GuardrailError, doc, path,
                                       f"`{col}`'s chain contains `{nullifier}`, which turns some values into NULL "
                                       "without a cast failing, so `coercible` cannot tell a bad value from one it "
                                       "nulled on purpose", "use not_null to refuse NULLs instead", prefix=label)
                    r = self.field_rule(doc, path, label, col, ctype, kind, rule, low)
                    if r is None:
                        continue
                    r["disposition"] = disposition
                    r["path"] = f"{label}.{_fmt(path)}"
                    add(rule_name(col, kind, rule), r)
                if explicit_coercible:
                    continue
                if low.nullifying and col not in dedupe_cols:
                    continue
                add(rule_name(col, "coercible", {}), {"rule": "coercible",
                    "column": col, "disposition": "fail" if col in dedupe_cols else "quarantine",
                    "implicit": True, "path": f"{label}.{section}.{col}"})
        return out

    def field_rule(self, doc, path, label, col, ctype: SpecType, kind, rule, low: Lowered) -> dict | None:
        r: dict[str, Any] = {"rule": kind, "column": col, "column_type": _type_ir(ctype)}

        def refuse(message, hint=None, cls=E.TypeCheckError, where=()):
            self.error(cls, doc, path + where, message, hint, prefix=label)

        if kind in ("length", "pattern", "normalize", "charset") and ctype.name != "string":
            refuse(f"`{kind}` judges text, but `{col}` is declared {ctype}",
                   "apply it to a string field, or judge this one with range or in_set")
            return None
        if kind == "range":
            if not (ctype.numeric or ctype.temporal):
                refuse(f"`range` compares numbers, dates or timestamps, but `{col}` is declared {ctype}",
                       "use length, in_set or pattern for text")
                return None
            for b in ("min", "max"):
                if b in rule:
                    literal = _bound_literal(rule[b], ctype)
                    if literal is None:
                        refuse(f"range bound {_show(rule[b])} does not compare with `{col}` ({ctype})",
                               "numbers for int/decimal fields, ISO dates for date fields, ISO timestamps for "
                               "timestamp fields", where=(b,))
                        return None
                    r[b] = literal
        elif kind == "length":
            r.update({b: rule[b] for b in ("min", "max") if b in rule})
        elif kind == "pattern":
            positions = _pattern_positions(rule["regex"])
            if positions > PATTERN_MAX_POSITIONS:
                refuse(f"the pattern expands to {positions} character positions once its repeats are counted out; "
                       f"duckdb, postgres and trino refuse or crawl on patterns that large, so a pattern rule stays "
                       f"within {PATTERN_MAX_POSITIONS}", "lower the repeat bounds (e.g. {1,64}), or move the size "
                       "limit into a `length` rule", E.GuardrailError, ("regex",))
                return None
            r["regex"] = rule["regex"]
        elif kind == "in_enum":
            values = _enum_admissible(low)
            if values is None:
                if "enum_map" in low.names:
                    last = max(i for i, n in enumerate(low.names) if n == "enum_map")
                    after = [n for n in low.names[last + 1:] if n not in ("enum_map", "to_string")]
                    message = (f"`in_enum` on `{col}` judges the targets of the last `enum_map`, but "
                               f"`{after[0]}` comes after it and can change the value")
                    hint = "move that step before the enum_map, or judge the result with in_set"
                else:
                    message = f"`in_enum` on `{col}` needs an `enum_map` in the chain: it judges that map's targets"
                    hint = "add {enum_map: [from, to, ...]} to the transform, or use in_set"
                refuse(message, hint, E.GuardrailError)
                return None
            r["values"] = values
        elif kind == "in_set":
            values = rule["values"]
            if ctype.name not in ("string", "int"):
                refuse(f"`in_set` needs a string or int field; `{col}` is declared {ctype}",
                       "use range for numbers and dates")
                return None
            if ctype.name == "int" and not all(isinstance(x, int) and not isinstance(x, bool) for x in values):
                bad = next(x for x in values if not (isinstance(x, int) and not isinstance(x, bool)))
                refuse(f"`in_set` on int field `{col}` needs integer members, got {_show(bad)}",
                       "write the members unquoted, e.g. [1, 2, 3]", where=("values",))
                return None
            r["values"] = [int(x) if ctype.name == "int" else str(x) for x in values]
        elif kind == "charset":
            side = "allow" if "allow" in rule else "forbid"
            try:
                r[side] = _codepoints(rule[side])
            except _CharsetError as exc:
                refuse(str(exc), "codepoints are U+0000..U+10FFFF without the surrogates U+D800-U+DFFF, "
                       f"at most {CHARSET_MAX} in all", E.GuardrailError, (side,) + exc.where)
                return None
        return r

    def referential_rule(self, name, entity, i, rule, relationships, types, rules, by_entity) -> dict | None:
        model = self.model
        path = ("entities", name, "quality", i)
        via = rule["via"]
        rel = relationships.get(via)
        if rel is None:
            close = difflib.get_close_matches(via, relationships, n=1)
            self.error(E.GuardrailError, model, path + ("via",), f"`{via}` is not a declared relationship",
                       f"did you mean `{close[0]}`?" if close else "declare it under `relationships:`")
            return None
        if rel["from"] != name:
            self.error(E.GuardrailError, model, path + ("via",),
                       f"relationship `{via}` runs from `{rel['from']}`, not from `{name}`",
                       "declare the referential rule on the relationship's `from` entity")
            return None
        if rel["to"] == name:
            self.error(E.GuardrailError, model, path + ("via",),
                       f"relationship `{via}` points back at `{name}`: a referential rule judges a child against "
                       "another entity's admitted rows", "use a coverage or reconcile check for self-references")
            return None
        if any(r["rule"] == "referential" and r["relationship"] == via for r in rules):
            self.error(E.GuardrailError, model, path + ("via",), f"a second referential rule on `{via}`",
                       "keep one referential rule per relationship")
            return None
        if by_entity is not None and rel["to"] not in by_entity:
            self.error(E.GuardrailError, model, path + ("via",),
                       f"relationship `{via}` points at `{rel['to']}`, which no mapping feeds: there would be no silver "
                       "rows to judge against", f"add a mapping with `target: {rel['to']}`, or drop the rule")
            return None
        pairs = [[f, t] for f, t in rel["via"].items()]
        on_missing = rule["on_missing"]
        if on_missing == "unknown_member":
            fk = pairs[0][0]
            if len(pairs) != 1 or types.get(fk) is None or types[fk].name != "string":
                what = (f"a composite key ({', '.join(p[0] for p in pairs)})" if len(pairs) != 1
                        else f"`{fk}`, declared {types.get(fk)}")
                self.error(E.GuardrailError, model, path + ("on_missing",),
                           f"unknown_member rewrites the foreign key to '{UNKNOWN_MEMBER}', so it needs one string column; "
                           f"`{via}` has {what}", "use on_missing: quarantine or flag")
                return None
        return {"name": f"{via}_referential", "rule": "referential", "column": pairs[0][0] if len(pairs) == 1 else None,
                "relationship": via, "parent": rel["to"], "pairs": pairs, "on_missing": on_missing,
                "disposition": "flag" if on_missing == "unknown_member" else on_missing,
                "path": _fmt(path)}

    def check_redaction(self, name, entity, quarantine, docs):
        for j, p in enumerate(quarantine.get("redact", [])):
            col = _top(p)
            where = ("entities", name, "quarantine", "redact", j)
            if col.lower() in METADATA and docs:
                # ingestion metadata is carried through to silver: a published column
                self.error(E.RedactionConflict, self.model, where,
                           f"`{col}` is ingestion metadata: it is published with `{name}` and identifies the row "
                           "for replay, so it cannot be redacted", "remove it from `redact:`")
                continue
            for doc in docs:
                v = doc.value
                reads = {s: _top(spec["from"]) for sec in ("key", "fields") for s, spec in v.get(sec, {}).items()}
                clash = sorted(f for f, c in reads.items() if c.lower() == col.lower())
                if clash:
                    self.error(E.RedactionConflict, self.model, where,
                               f"redacting bronze column `{col}` would destroy what {self.mapping_label(doc)} reads "
                               f"for {', '.join(clash)}: replay would have nothing to re-run against",
                               "redact only columns the mapping does not read (list them under `unmapped:`); "
                               "to protect a published column, classify it and grant the entity")

    def check_classification(self, name, entity, mapping_irs):
        if entity.get("grants"):
            return
        for fname, spec in entity["fields"].items():
            level = spec.get("classification")
            if level and level != "public":
                self.error(E.ClassificationUngranted, self.model, ("entities", name, "fields", fname, "classification"),
                           f"`{fname}` is classified {level}, but the relations that publish `{name}` declare no grants",
                           "add grants: {select: [<role>]} to the entity, or classify the column public")

    def check_asserts(self, name, entity, docs):
        mapped = {c for d in docs for sec in ("key", "fields") for c in d.value.get(sec, {})}
        for fname, spec in entity["fields"].items():
            clause = spec.get("assert")
            if not clause:
                continue
            path = ("entities", name, "fields", fname, "assert")
            t = parse_type(spec["type"])
            if fname not in mapped:
                self.error(E.AssertLoweringError, self.model, path,
                           f"`{fname}` carries assert: but no mapping of `{name}` maps it, so there is nothing to check",
                           "map the field or drop the assert")
                continue
            for b in ("min", "max"):
                if b in clause and _bound_literal(clause[b], t) is None:
                    self.error(E.AssertLoweringError, self.model, path + (b,),
                               f"assert {b} {_show(clause[b])} does not compare with `{fname}` ({t})",
                               "min/max need a number on an int/decimal field, or an ISO date/timestamp string on "
                               "a date/timestamp field")
            if "enum" in clause:
                ok = (t.name == "string" and all(isinstance(x, str) for x in clause["enum"])) or \
                     (t.name == "int" and all(isinstance(x, int) and not isinstance(x, bool) for x in clause["enum"]))
                if not ok:
                    self.error(E.AssertLoweringError, self.model, path + ("enum",),
                               f"assert enum members must match `{fname}`'s type ({t})",
                               "strings for a string field, integers for an int field")
            if "regex" in clause:
                if t.name != "string":
                    self.error(E.AssertLoweringError, self.model, path + ("regex",),
                               f"assert regex needs a string field; `{fname}` is {t}", "drop it or assert min/max")
                else:
                    try:
                        re.compile(clause["regex"])
                    except (re.error, OverflowError, RecursionError, ValueError) as exc:
                        self.error(E.AssertLoweringError, self.model, path + ("regex",),
                                   f"assert regex does not compile: {exc}", "fix the regular expression")

    def assert_irs(self, name, entity) -> list[dict]:
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
                            "column_type": _type_ir(t)})
        return out

    # -- document-level checks (spec 3.6) -----------------------------------------------------
    def reconcile_irs(self, by_entity) -> list[dict]:
        model = self.model
        out: list[dict] = []
        names: set[str] = set()
        for i, check in enumerate(model.value.get("reconcile", [])):
            path = ("reconcile", i)
            if check["name"] in names:
                self.error(E.GuardrailError, model, path + ("name",),
                           f"a second reconcile check named `{check['name']}`: its model `{check['name']}__reconcile` "
                           "would be written twice", "give each reconcile check its own name")
                continue
            names.add(check["name"])
            sides = {s: self.reconcile_side(check[s], path + (s,), by_entity) for s in ("left", "right")}
            if any(v is None for v in sides.values()):
                continue
            left, right = sides["left"], sides["right"]
            if set(left["by"]) != set(right["by"]):
                self.error(E.GuardrailError, model, path,
                           f"reconcile `{check['name']}` compares values keyed by ({', '.join(left['by'])}) on the left "
                           f"with values keyed by ({', '.join(right['by'])}) on the right: the key sets must match",
                           "aggregate one side `by` the other side's key columns, e.g. "
                           f"sum({right['entity']}.{right['column']}) by {', '.join(left['by'])}")
                continue
            clash = [k for k in left["by"] if _key_type(left, k) != _key_type(right, k)]
            if clash:
                k = clash[0]
                self.error(E.GuardrailError, model, path,
                           f"reconcile `{check['name']}` joins on `{k}`, declared {_key_type(left, k)} on "
                           f"`{left['entity']}` but {_key_type(right, k)} on `{right['entity']}`",
                           "key columns must have the same type on both sides")
                continue
            for side in (left, right):
                side.pop("key_types")
            mapping = by_entity[left["entity"]][0].value
            out.append({"name": check["name"], "left": left, "right": right, "keys": list(left["by"]),
                        "tolerance": _tolerance(check["tolerance"]), "on_fail": check["on_fail"],
                        "entity": left["entity"], "mapping": f"{mapping['source']}->{left['entity']}",
                        "path": _fmt(path)})
        return out

    def reconcile_side(self, text: str, path: tuple, by_entity) -> dict | None:
        model = self.model
        entities = model.value["entities"]

        def refuse(message, hint=None):
            self.error(E.GuardrailError, model, path, message, hint)

        m = _RECONCILE_AGG_SIDE.match(text)
        agg = None
        if m:
            agg = m.group("agg")
            if agg not in RECONCILE_AGGS:
                close = difflib.get_close_matches(agg.lower(), RECONCILE_AGGS, n=1)
                refuse(f"`{agg}` is not a reconcile aggregate", f"did you mean `{close[0]}`?" if close
                       else "one of: " + ", ".join(RECONCILE_AGGS))
                return None
            by = [b.strip() for b in m.group("by").split(",")]
            bad = [b for b in by if not re.fullmatch(_IDENT, b)]
            if bad:
                refuse(f"`by {m.group('by')}` is not a list of column names",
                       "write `by col` or `by col_a, col_b`")
                return None
        else:
            m = _RECONCILE_BARE_SIDE.match(text)
            if not m:
                refuse(f"`{text}` is not a reconcile side",
                       "write `<entity>.<column>` or `<agg>(<entity>.<column>) by <col>[, <col>...]` with agg one of "
                       + ", ".join(RECONCILE_AGGS))
                return None
            by = None
        ename, column = m.group("entity"), m.group("column")
        if ename not in entities:
            close = difflib.get_close_matches(ename, entities, n=1)
            refuse(f"`{ename}` is not an entity", f"did you mean `{close[0]}`?" if close else "declare it under `entities:`")
            return None
        docs = by_entity.get(ename, [])
        if not docs:
            refuse(f"entity `{ename}` has no mapping, so there are no rows to reconcile",
                   f"add a mapping with `target: {ename}`")
            return None
        if len(docs) > 1:
            refuse(f"entity `{ename}` is merged from {len(docs)} mappings; reconcile reads single-source entities",
                   "reconcile against one of its sources' entity instead")
            return None
        entity = entities[ename]
        fields = entity["fields"]
        if column not in fields:
            close = difflib.get_close_matches(column, fields, n=1)
            refuse(f"`{column}` is not a field of `{ename}`", f"did you mean `{close[0]}`?" if close else None)
            return None
        ctype = parse_type(fields[column]["type"])
        if agg != "count" and not ctype.numeric:
            refuse(f"reconcile compares numbers, but {agg + '(' if agg else ''}`{ename}.{column}`{')' if agg else ''} "
                   f"is {ctype}", "reconcile an int or decimal column, or count(...) rows")
            return None
        if by is None:
            by = list(entity["key"])
        else:
            seen: set[str] = set()
            for b in by:
                if b in seen:
                    refuse(f"`{b}` is repeated in `by`", "list each key column once")
                    return None
                seen.add(b)
                if b not in fields:
                    close = difflib.get_close_matches(b, fields, n=1)
                    refuse(f"`by {b}`: `{b}` is not a field of `{ename}`",
                           f"did you mean `{close[0]}`?" if close else None)
                    return None
        return {"agg": agg, "entity": ename, "column": column, "by": by, "column_type": _type_ir(ctype),
                "key_types": {b: str(parse_type(fields[b]["type"])) for b in by}}

    def coverage_irs(self, by_entity, relationships) -> list[dict]:
        model = self.model
        entities = model.value["entities"]
        out: list[dict] = []
        names: set[str] = set()
        for i, check in enumerate(model.value.get("coverage", [])):
            path = ("coverage", i)
            if check["name"] in names:
                self.error(E.GuardrailError, model, path + ("name",),
                           f"a second coverage check named `{check['name']}`: its audit `{check['name']}_coverage` "
                           "would be written twice", "give each coverage check its own name")
                continue
            names.add(check["name"])
            rel = relationships.get(check["relationship"])
            if rel is None:
                close = difflib.get_close_matches(check["relationship"], relationships, n=1)
                self.error(E.GuardrailError, model, path + ("relationship",),
                           f"`{check['relationship']}` is not a declared relationship",
                           f"did you mean `{close[0]}`?" if close else "declare it under `relationships:`")
                continue
            if rel["from"] not in entities or rel["to"] not in entities:
                continue  # reported as MissingReference on the relationship
            unmapped = [e for e in (rel["from"], rel["to"]) if e not in by_entity]
            if unmapped:
                self.error(E.GuardrailError, model, path + ("relationship",),
                           f"coverage `{check['name']}` counts rows of `{rel['from']}` per row of `{rel['to']}`, but "
                           f"no mapping feeds {' nor '.join(f'`{e}`' for e in unmapped)}",
                           f"add a mapping with `target: {unmapped[0]}`, or drop the check")
                continue
            out.append({"name": check["name"], "relationship": rel["name"], "from": rel["from"], "to": rel["to"],
                        "pairs": [[f, t] for f, t in rel["via"].items()], "min": check.get("min", 1),
                        "on_fail": check["on_fail"], "path": _fmt(path)})
        return out


def _fmt(path) -> str:
    return format_path(path)


def _parse_path(text: str) -> tuple:
    """`fields.x.quality[0]` -> ("fields", "x", "quality", 0); the inverse of format_path for
    names without dots or brackets (anything else falls back to the nearest enclosing node)."""
    out: list = []
    for part in re.findall(r"\[(\d+)\]|([^.\[\]]+)", text):
        index, name = part
        out.append(int(index) if index else name)
    return tuple(out)


def _type_ir(t: SpecType) -> dict:
    return {"name": t.name, "precision": t.precision, "scale": t.scale} if t.name == "decimal" else {"name": t.name}


def _key_type(side: dict, column: str) -> str:
    return side["key_types"][column]


def _tolerance(value) -> str:
    # the schema admits only non-negative integers and quoted decimals
    return format(Decimal(str(value)).normalize(), "f") if Decimal(str(value)) != 0 else "0"


def _split_path(path: str) -> tuple[str, str | None]:
    parts = path.split(".")[1:]
    return parts[0], ("$." + ".".join(parts[1:]) if len(parts) > 1 else None)


def _top(path: str) -> str:
    return path.split(".")[1]


def _inner(expr: str) -> str:
    m = re.fullmatch(r"\s*\w+\((\w+)\)\s*", expr)
    return m.group(1) if m else expr.strip()


# partition_by's bucketing functions (the schema admits these four) -> the date_trunc unit
_BUCKETS = {"days": "day", "months": "month", "years": "year", "hours": "hour"}


def _bucket(expr: str) -> str | None:
    """The time bucket of a partition_by item: "day" for `days(col)`, None for a bare column."""
    m = re.fullmatch(r"\s*(\w+)\((\w+)\)\s*", expr)
    return _BUCKETS[m.group(1)] if m else None


def _hours(retention: str) -> int:
    return int(retention[:-1]) * RETENTION_HOURS[retention[-1]]


DRIFT_DEFAULTS = {"window": 14, "min_history": 7, "sensitivity": 3, "min_change": "50%", "severity": "warn"}


def _drift(spec: dict) -> dict:
    """An entity's `drift:` block with its defaults: runs as integers, sensitivity in hundredths,
    min_change in basis points (of the baseline median)."""
    d = dict(DRIFT_DEFAULTS, **spec)
    return {"window": int(d["window"]), "min_history": int(d["min_history"]),
            "sensitivity_x100": int(Decimal(str(d["sensitivity"])) * 100),
            "min_change_bp": _basis_points(d["min_change"]), "severity": d["severity"]}


def _basis_points(percent: str) -> int:
    """A quarantine threshold (`^(100|[1-9]?[0-9](\\.[0-9]{1,2})?)%$`) in basis points: "0.5%" is 50."""
    return int(Decimal(percent[:-1]) * 100)


def _duration(text: str) -> dict:
    count, unit = int(text[:-1]), text[-1]
    if unit == "w":
        count *= 7
    return {"count": count, "period": FRESHNESS_PERIOD[unit]}


def _minutes(text: str) -> int:
    """A freshness duration (`^[1-9][0-9]{0,4}[mhdw]$`) in minutes, to compare two of them."""
    return int(text[:-1]) * FRESHNESS_MINUTES[text[-1]]
