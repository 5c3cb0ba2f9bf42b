"""From spec files to one resolved, dialect-free description per entity.

Stages, each collecting its errors before the next runs (so a user sees every problem of a
kind at once, without cascades from an earlier one):

  parse      YAML, document kinds, JSON Schema, grammars the schema cannot say
  resolve    mappings to entities and fields, merged entities
  typecheck  transform chains (transforms/chain.py)
  guardrail  everything else decidable from the spec alone, and rule resolution
             (implicit `coercible`, generated names, forced dispositions)

The output (`ProjectIR`) is what the emitter turns into dbt files; the macros render it.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from . import errors as E
from .errors import BloomeryError, ErrorSink, Location
from .rules.expression import ExpressionError, check_expression
from .rules.regex_subset import PortableRegexError, check_portable_regex
from .spec.documents import SpecDocument, discover, read_document
from .transforms.chain import NULLIFYING, ChainError, Lowered, lower_chain
from .transforms.types import SpecType, parse_type

METADATA = ("_load_id", "_ingested_at", "_source_row_id")
RESERVED = frozenset({"metric_time", "_quality_flags", "_quality_ok", "_quality_repairs", "_load_id",
                      "_ingested_at", "_source_row_id", "_source", "has_quality_flags"})
SEVERITY = {"flag": 1, "quarantine": 2, "fail": 3}
RETENTION_HOURS = {"h": 1, "d": 24, "w": 168}
FRESHNESS_PERIOD = {"m": "minute", "h": "hour", "d": "day", "w": "day"}
UNKNOWN_MEMBER = "__unknown__"
_RULE_NAME = re.compile(r"[^a-z0-9_]")
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_ISO_TS = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?$")
_DECIMAL_TEXT = re.compile(r"^-?\d+(\.\d+)?$")


@dataclass
class ProjectIR:
    entities: dict[str, dict]                 # entity name -> entity IR (see _entity_ir)
    relationships: list[dict] = field(default_factory=list)
    sources: list[dict] = field(default_factory=list)   # bronze relations, with freshness
    files: list[str] = field(default_factory=list)


def check_project(specs_dir: Path) -> ProjectIR:
    """Compile a spec tree; raise BloomeryErrors with every error found, sorted by location."""
    return _Compiler(specs_dir).run()


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
                                           Location(str(self.specs_dir)), "pass --specs DIR"))
            return
        paths = discover(self.specs_dir)
        for path in paths:
            display = str(path.relative_to(self.specs_dir.parent)) if self.specs_dir.parent != path else str(path)
            doc, errs = read_document(path, display)
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
        """Grammar the JSON Schema cannot express: reserved names, type bounds, bounds, regexes."""
        model = self.model
        for name, entity in model.value["entities"].items():
            base = ("entities", name)
            for fname, fspec in entity["fields"].items():
                if fname in RESERVED:
                    self.error(E.SpecParseError, model, base + ("fields", fname),
                               f"`{fname}` is a reserved name", "rename the field")
                if parse_type(fspec["type"]) is None:
                    self.error(E.SpecParseError, model, base + ("fields", fname, "type"),
                               f"`{fspec['type']}` is not a valid type",
                               "decimal(p,s) needs 1 <= p <= 38 and s <= p")
            for i, rule in enumerate(entity.get("quality", [])):
                if rule.get("rule") == "expression" and rule.get("name") in RESERVED:
                    self.error(E.SpecParseError, model, base + ("quality", i, "name"),
                               f"`{rule['name']}` is a reserved name", "choose another rule name")
        for doc in self.mappings:
            for fname, fspec in doc.value.get("fields", {}).items():
                for i, rule in enumerate(fspec.get("quality", [])):
                    self.rule_grammar(doc, ("fields", fname, "quality", i), rule)

    def rule_grammar(self, doc, path, rule):
        kind = rule["rule"]
        if kind in ("range", "length"):
            bounds = [b for b in ("min", "max") if b in rule]
            if not bounds:
                self.error(E.SpecParseError, doc, path, f"`{kind}` needs `min`, `max` or both",
                           f"write {{rule: {kind}, min: 0, on_fail: ...}}")
            for b in bounds:
                value = rule[b]
                if kind == "length":
                    continue  # schema: integers >= 0
                if isinstance(value, bool) or not _bound_ok(value):
                    self.error(E.SpecParseError, doc, path + (b,),
                               f"range bound {value!r} is not an integer, an exact decimal or an ISO date/timestamp",
                               'write 0, "12.50" or "2015-01-01T00:00:00" (no nan, inf or exponent)')
            if kind == "length" and len(bounds) == 2 and rule["min"] > rule["max"]:
                self.error(E.SpecParseError, doc, path, "length `min` is greater than `max`")
        elif kind == "pattern":
            try:
                check_portable_regex(rule["regex"])
            except PortableRegexError as exc:
                self.error(E.SpecParseError, doc, path + ("regex",), str(exc),
                           "pattern accepts a portable regex subset, anchored with ^...$")

    # -- resolve ---------------------------------------------------------------------------------
    def resolve(self) -> dict[str, list[SpecDocument]]:
        model = self.model
        entities = model.value["entities"]
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
            for col in key:
                if col in fields and col not in entity["key"]:
                    self.error(E.ResolutionError, doc, ("key", col),
                               f"`{col}` is under `key:` but is not part of entity `{target}`'s key {entity['key']}",
                               "move it under `fields:`", prefix=label)
            for col in entity["key"]:
                if col not in key:
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
                           f"two mappings of entity `{target}` read source `{v['source']}` ({same_source[0].file})",
                           "merge them into one mapping", prefix=label)
                continue
            by_entity.setdefault(target, []).append(doc)
        for name, docs in by_entity.items():
            if len(docs) > 1 and self.joins_quality(name, docs, ignore_dedupe=False):
                entity = entities[name]
                what = [k for k in ("dedupe", "quarantine", "quality") if entity.get(k)]
                if any(f.get("quality") for d in docs for f in d.value.get("fields", {}).values()):
                    what.append("field quality")
                self.error(E.ResolutionError, model, ("entities", name),
                           f"entity `{name}` is merged from {len(docs)} mappings and declares {', '.join(what)}",
                           "a merged entity cannot carry dedupe, quarantine or quality rules; give it one mapping")
        return by_entity

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
        lowered: dict = {}
        for name, docs in by_entity.items():
            fields = entities[name]["fields"]
            for doc in docs:
                label = self.mapping_label(doc)
                for section in ("key", "fields"):
                    for col, spec in doc.value.get(section, {}).items():
                        if col not in fields:
                            continue
                        declared = parse_type(fields[col]["type"])
                        try:
                            low = lower_chain(spec.get("transform", []), declared)
                        except ChainError as exc:
                            path = (section, col, "transform") + ((exc.index,) if exc.index is not None else ())
                            cls = E.UnknownTransformError if exc.unknown else E.TypeCheckError
                            self.error(cls, doc, path, exc.message, exc.hint, prefix=label)
                            continue
                        lowered[(id(doc), col)] = low
        return lowered

    # -- guardrails and rule resolution -------------------------------------------------------
    def build(self, by_entity, lowered) -> ProjectIR:
        model = self.model.value
        relationships = {r["name"]: r for r in model.get("relationships", [])}
        self.check_relationships(relationships)
        project = ProjectIR(entities={}, relationships=list(relationships.values()))
        for name in sorted(by_entity):
            ir = self.entity_ir(name, by_entity[name], lowered, relationships)
            if ir is not None:
                project.entities[name] = ir
        for doc in self.mappings:
            v = doc.value
            if v["target"] not in project.entities:
                continue
            ir = project.entities[v["target"]]
            source = {"name": v["source"], "entity": v["target"]}
            if "freshness" in v:
                if not ir["metadata"]:
                    self.error(E.FreshnessWithoutIngestionMetadata, doc, ("freshness",),
                               f"freshness reads `_ingested_at`, but entity `{v['target']}` declares neither "
                               "`quarantine:` nor `dedupe:`, so bronze need not carry it",
                               "declare dedupe: or quarantine: on the entity, or drop freshness", prefix=self.mapping_label(doc))
                source["freshness"] = {k: _duration(val) for k, val in v["freshness"].items()}
            project.sources.append(source)
        project.sources.sort(key=lambda s: s["name"])
        self.check_cycles(project)
        project.files = sorted([self.model.file] + [d.file for d in self.mappings]
                               + ([self.catalog.file] if self.catalog else []))
        return project

    def check_relationships(self, relationships):
        model = self.model
        entities = model.value["entities"]
        for i, rel in enumerate(model.value.get("relationships", [])):
            for side in ("from", "to"):
                if rel[side] not in entities:
                    close = difflib.get_close_matches(rel[side], entities, n=1)
                    self.error(E.MissingReference, model, ("relationships", i, side),
                               f"relationship `{rel['name']}` names unknown entity `{rel[side]}`",
                               f"did you mean `{close[0]}`?" if close else None)
                    continue
            if rel["from"] in entities and rel["to"] in entities:
                for fcol, tcol in rel["via"].items():
                    if fcol not in entities[rel["from"]]["fields"]:
                        self.error(E.MissingReference, model, ("relationships", i, "via", fcol),
                                   f"`{fcol}` is not a field of `{rel['from']}`")
                    if tcol not in entities[rel["to"]]["fields"]:
                        self.error(E.MissingReference, model, ("relationships", i, "via", fcol),
                                   f"`{tcol}` is not a field of `{rel['to']}`")

    def entity_ir(self, name, docs, lowered, relationships) -> dict | None:
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
                               "nor an ingestion metadata column",
                               f"did you mean `{close[0]}`?" if close else None)

        mapping_irs = []
        rules: list[dict] = []
        generated: list[str] = []
        for doc in docs:
            mir = self.mapping_ir(name, entity, doc, lowered, quarantine)
            mapping_irs.append(mir)
            if quality:
                rules += self.field_rules(name, entity, doc, lowered, types, dedupe_cols, generated)
        for i, rule in enumerate(entity.get("quality", [])):
            if rule["rule"] == "referential":
                r = self.referential_rule(name, entity, i, rule, relationships, types, rules)
                if r:
                    r["name"] = _unique(r["name"], generated)
                    rules.append(r)
        authored = set()
        for i, rule in enumerate(entity.get("quality", [])):
            if rule["rule"] != "expression":
                continue
            path = base + ("quality", i)
            if rule["name"] in generated:
                self.error(E.GuardrailError, model, path + ("name",),
                           f"rule name `{rule['name']}` is already the generated name of another rule",
                           "choose a different name for the expression rule")
                continue
            if rule["name"] in authored:
                self.error(E.GuardrailError, model, path + ("name",), f"duplicate rule name `{rule['name']}`")
                continue
            authored.add(rule["name"])
            try:
                checked = check_expression(rule["expr"], known_columns)
            except ExpressionError as exc:
                self.error(E.GuardrailError, model, path + ("expr",), str(exc))
                continue
            rules.append({"name": rule["name"], "rule": "expression", "column": None,
                          "disposition": rule["on_fail"], "template": checked.template,
                          "columns": list(checked.columns), "path": _fmt(path)})

        if any(r["disposition"] == "quarantine" for r in rules) and not quarantine:
            first = next(r for r in rules if r["disposition"] == "quarantine")
            self.error(E.QuarantineRetentionMissing, model, base,
                       f"rule `{first['name']}` can quarantine rows of `{name}`, but the entity has no "
                       "`quarantine:` block saying how long rejected rows are kept",
                       "add quarantine: {retention: 90d}")
        if quarantine:
            self.check_redaction(name, quarantine, docs)
        self.check_classification(name, entity, mapping_irs)
        self.check_asserts(name, entity, docs)

        rules.sort(key=lambda r: r["name"])
        return {
            "entity": name,
            "grain": entity["grain"],
            "key": list(entity["key"]),
            "scd": entity.get("scd", "type1"),
            "quality": quality,
            "metadata": metadata,
            "columns": [{"name": f, "type": _type_ir(types[f]), "key": f in entity["key"]} for f in fields],
            "mappings": mapping_irs,
            "dedupe": {"order": [{"column": c, "metadata": c in METADATA and c not in fields} for c in dedupe_cols]}
                      if dedupe else None,
            "quarantine": {"retention": quarantine["retention"],
                           "retention_hours": _hours(quarantine["retention"]),
                           "redact": sorted({_top(p) for p in quarantine.get("redact", [])})}
                          if quarantine else None,
            "rules": rules,
            "grants": entity.get("grants"),
            "partition_by": [_inner(p) for p in entity.get("partition_by", [])],
            "asserts": self.assert_irs(name, entity),
        }

    def mapping_ir(self, name, entity, doc, lowered, quarantine) -> dict:
        v = doc.value
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
                                "steps": low.steps, "nullifying": low.nullifying, "casts": low.casts})
        raw = set(read) | {_top(p) for p in v.get("unmapped", [])}
        if quarantine:
            raw -= {_top(p) for p in quarantine.get("redact", [])}
        return {"source": v["source"], "mapping": f"{v['source']}->{name}", "mapping_version": 1,
                "columns": columns, "raw_columns": sorted(raw), "read_columns": sorted(read),
                "unmapped": sorted(_top(p) for p in v.get("unmapped", []))}

    def field_rules(self, name, entity, doc, lowered, types, dedupe_cols, generated) -> list[dict]:
        label = self.mapping_label(doc)
        out = []
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
                        if col in dedupe_cols and SEVERITY[disposition] < SEVERITY["fail"]:
                            self.error(E.DedupeDispositionConflict, doc, path + ("on_fail",),
                                       f"`{col}` orders dedupe, so a value that will not cast would leave the surviving "
                                       f"row undefined; its coercible rule must be `fail`, not `{disposition}`",
                                       "write on_fail: fail, or drop the rule (it is implied)", prefix=label)
                        elif low.nullifying and col not in dedupe_cols:
                            self.error(E.GuardrailError, doc, path,
                                       f"`{col}`'s chain contains a nullifying step, so a NULL result is not a failed cast",
                                       "use not_null to refuse NULLs instead", prefix=label)
                    r = self.field_rule(doc, path, label, col, ctype, kind, rule, low)
                    if r is None:
                        continue
                    r["name"] = _unique(_rule_name(col, kind, rule), generated)
                    r["disposition"] = disposition
                    r["path"] = f"{label}.{_fmt(path)}"
                    out.append(r)
                if explicit_coercible:
                    continue
                if low.nullifying and col not in dedupe_cols:
                    continue
                out.append({"name": _unique(_rule_name(col, "coercible", {}), generated), "rule": "coercible",
                            "column": col, "disposition": "fail" if col in dedupe_cols else "quarantine",
                            "implicit": True, "path": f"{label}.{section}.{col}"})
        return out

    def field_rule(self, doc, path, label, col, ctype: SpecType, kind, rule, low: Lowered) -> dict | None:
        r: dict[str, Any] = {"rule": kind, "column": col, "column_type": _type_ir(ctype)}

        def refuse(message, hint=None, cls=E.TypeCheckError):
            self.error(cls, doc, path, message, hint, prefix=label)

        if kind in ("length", "pattern", "normalize", "charset") and ctype.name != "string":
            refuse(f"`{kind}` judges text, but `{col}` is {ctype}", "apply it to a string field")
            return None
        if kind == "range":
            for b in ("min", "max"):
                if b in rule:
                    literal = _bound_literal(rule[b], ctype)
                    if literal is None:
                        refuse(f"range bound {rule[b]!r} does not compare with `{col}` ({ctype})",
                               "numbers for int/decimal fields, ISO dates or timestamps for date/timestamp fields")
                        return None
                    r[b] = literal
        elif kind == "length":
            r.update({b: rule[b] for b in ("min", "max") if b in rule})
        elif kind == "pattern":
            r["regex"] = rule["regex"]
        elif kind == "in_enum":
            values = _enum_admissible(low)
            if values is None:
                refuse(f"`in_enum` on `{col}` needs an `enum_map` in its chain, with only `enum_map` or "
                       "`to_string` after the last one", "add {enum_map: [from, to, ...]} to the transform", E.GuardrailError)
                return None
            r["values"] = values
        elif kind == "in_set":
            values = rule["values"]
            if ctype.name not in ("string", "int"):
                refuse(f"`in_set` needs a string or int field; `{col}` is {ctype}")
                return None
            if ctype.name == "int" and not all(isinstance(x, int) and not isinstance(x, bool) for x in values):
                refuse(f"`in_set` on int field `{col}` needs integer members")
                return None
            r["values"] = [int(x) if ctype.name == "int" else str(x) for x in values]
        elif kind == "charset":
            side = "allow" if "allow" in rule else "forbid"
            try:
                r[side] = _codepoints(rule[side])
            except ValueError as exc:
                refuse(str(exc), "codepoints are U+0000..U+10FFFF, no surrogates, at most 1024 in all", E.GuardrailError)
                return None
        return r

    def referential_rule(self, name, entity, i, rule, relationships, types, rules) -> dict | None:
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
        pairs = [[f, t] for f, t in rel["via"].items()]
        on_missing = rule["on_missing"]
        if on_missing == "unknown_member":
            if len(pairs) != 1 or types.get(pairs[0][0]) is None or types[pairs[0][0]].name != "string":
                self.error(E.GuardrailError, model, path + ("on_missing",),
                           "unknown_member rewrites the foreign key to '__unknown__', so it needs one string column",
                           "use on_missing: quarantine or flag for composite or non-string keys")
                return None
        return {"name": f"{via}_referential", "rule": "referential", "column": pairs[0][0] if len(pairs) == 1 else None,
                "relationship": via, "parent": rel["to"], "pairs": pairs, "on_missing": on_missing,
                "disposition": "flag" if on_missing == "unknown_member" else on_missing,
                "path": _fmt(path)}

    def check_redaction(self, name, quarantine, docs):
        for j, p in enumerate(quarantine.get("redact", [])):
            col = _top(p)
            for doc in docs:
                v = doc.value
                reads = {s: _top(spec["from"]) for sec in ("key", "fields") for s, spec in v.get(sec, {}).items()}
                clash = sorted(f for f, c in reads.items() if c == col)
                if clash:
                    self.error(E.RedactionConflict, self.model, ("entities", name, "quarantine", "redact", j),
                               f"redacting bronze column `{col}` would destroy what {self.mapping_label(doc)} reads "
                               f"for {', '.join(clash)}: replay would have nothing to re-run against",
                               "redact only columns the mapping does not read (list them under `unmapped:`)")

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
                self.error(E.AssertLoweringError, self.model, path, f"`{fname}` carries assert: but no mapping maps it",
                           "map the field or drop the assert")
                continue
            for b in ("min", "max"):
                if b in clause and _bound_literal(clause[b], t) is None:
                    self.error(E.AssertLoweringError, self.model, path + (b,),
                               f"assert {b} {clause[b]!r} does not compare with `{fname}` ({t})")
            if "enum" in clause:
                ok = (t.name == "string" and all(isinstance(x, str) for x in clause["enum"])) or \
                     (t.name == "int" and all(isinstance(x, int) and not isinstance(x, bool) for x in clause["enum"]))
                if not ok:
                    self.error(E.AssertLoweringError, self.model, path + ("enum",),
                               f"assert enum members must match `{fname}`'s type ({t})")
            if "regex" in clause:
                if t.name != "string":
                    self.error(E.AssertLoweringError, self.model, path + ("regex",), f"assert regex needs a string field")
                else:
                    try:
                        re.compile(clause["regex"])
                    except re.error as exc:
                        self.error(E.AssertLoweringError, self.model, path + ("regex",), f"assert regex is invalid: {exc}")

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
                out.append({"name": f"{name}_{fname}_{kind}", "column": fname, "kind": kind, "value": value,
                            "column_type": _type_ir(t)})
        return out

    def check_cycles(self, project: ProjectIR):
        """Referential rules become dbt refs: a cycle of them would be a dbt cycle."""
        graph = {n: sorted({r["parent"] for r in ir["rules"] if r["rule"] == "referential"
                            and r["parent"] in project.entities}) for n, ir in project.entities.items()}
        state: dict[str, int] = {}

        def visit(n, stack):
            state[n] = 1
            for p in graph[n]:
                if state.get(p) == 1:
                    cycle = stack[stack.index(p):] + [p] if p in stack else [n, p]
                    self.error(E.GuardrailError, self.model, ("entities", n, "quality"),
                               "referential rules form a cycle: " + " -> ".join(cycle),
                               "judge one direction with a referential rule and the other with a coverage check")
                elif state.get(p) is None:
                    visit(p, stack + [p])
            state[n] = 2

        for n in sorted(graph):
            if n not in state:
                visit(n, [n])


# ----------------------------------------------------------------------------------------------
def _fmt(path) -> str:
    from .spec.yaml_source import format_path
    return format_path(path)


def _type_ir(t: SpecType) -> dict:
    return {"name": t.name, "precision": t.precision, "scale": t.scale} if t.name == "decimal" else {"name": t.name}


def _split_path(path: str) -> tuple[str, str | None]:
    parts = path.split(".")[1:]
    return parts[0], ("$." + ".".join(parts[1:]) if len(parts) > 1 else None)


def _top(path: str) -> str:
    return path.split(".")[1]


def _inner(expr: str) -> str:
    m = re.fullmatch(r"\s*\w+\((\w+)\)\s*", expr)
    return m.group(1) if m else expr.strip()


def _hours(retention: str) -> int:
    return int(retention[:-1]) * RETENTION_HOURS[retention[-1]]


def _duration(text: str) -> dict:
    count, unit = int(text[:-1]), text[-1]
    if unit == "w":
        count *= 7
    return {"count": count, "period": FRESHNESS_PERIOD[unit]}


def _rule_name(col: str, kind: str, rule: dict) -> str:
    name = f"{col}_{kind}"
    if kind in ("range", "length"):
        has = [b for b in ("min", "max") if b in rule]
        if len(has) == 1:
            name += "_" + has[0]
    return _RULE_NAME.sub("_", name.lower())


def _unique(name: str, taken: list[str]) -> str:
    candidate, n = name, 1
    while candidate in taken:
        n += 1
        candidate = f"{name}_{n}"
    taken.append(candidate)
    return candidate


def _bound_ok(value) -> bool:
    if isinstance(value, int):
        return True
    if isinstance(value, Decimal):
        return value.is_finite() and "e" not in str(value).lower()
    if isinstance(value, str):
        return bool(_DECIMAL_TEXT.match(value) or _ISO_DATE.match(value) or _ISO_TS.match(value))
    return False


def _bound_literal(value, t: SpecType):
    """The bound as the macros render it: {"kind": number|date|timestamp, "value": text}; None if it cannot compare."""
    if isinstance(value, bool) or value is None:
        return None
    text = str(value)
    if t.numeric and (isinstance(value, (int, Decimal)) or _DECIMAL_TEXT.match(text)):
        try:
            if not Decimal(text).is_finite():
                return None
        except InvalidOperation:
            return None
        return {"kind": "number", "value": text}
    if t.name == "date" and isinstance(value, str) and _ISO_DATE.match(text):
        return {"kind": "date", "value": text}
    if t.name == "timestamp" and isinstance(value, str) and (_ISO_TS.match(text) or _ISO_DATE.match(text)):
        return {"kind": "timestamp", "value": text.replace("T", " ")}
    return None


def _enum_admissible(low: Lowered) -> list[str] | None:
    names = low.names
    if "enum_map" not in names:
        return None
    last = max(i for i, n in enumerate(names) if n == "enum_map")
    if any(n not in ("enum_map", "to_string") for n in names[last + 1:]):
        return None
    # Values the last map can produce from an admissible input: its targets, each passed
    # through the map itself (a target that is also a spelling maps on, as in the CASE).
    last_map = [s for s in low.steps if s["op"] == "enum_map"][-1]
    first: dict[str, str] = {}
    for spelling, target in last_map["pairs"]:
        first.setdefault(spelling, target)
    admissible = {first.get(t, t) for t in first.values()}
    return sorted(admissible or [])


def _codepoints(items: list[str]) -> list[int]:
    points: set[int] = set()
    for item in items:
        parts = item.split("-")
        lo = int(parts[0][2:], 16)
        hi = int(parts[1][2:], 16) if len(parts) == 2 else lo
        if hi < lo:
            raise ValueError(f"codepoint range {item} runs backwards")
        if hi > 0x10FFFF:
            raise ValueError(f"{item} is beyond U+10FFFF")
        if lo <= 0xDFFF and hi >= 0xD800:
            raise ValueError(f"{item} includes surrogates (U+D800-U+DFFF), which are not characters")
        if hi - lo + 1 + len(points) > 1024:
            raise ValueError("a charset holds at most 1024 codepoints")
        points.update(range(lo, hi + 1))
    return sorted(points)
