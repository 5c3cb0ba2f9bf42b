"""Stage 4 for one entity: its IR (columns, mappings, dedupe order, quarantine, rules, asserts,
drift, dbt metadata), and the entity-level guardrails decidable from the spec alone."""
from __future__ import annotations

import dataclasses
import difflib

from .. import errors as E
from ..spec.dbt_metadata import _dbt_metadata
from ..spec.yaml_source import format_path
from ..transforms.chain import Lowered
from ..transforms.types import parse_type
from ..vocabulary import METADATA
from .checks import assert_irs, check_asserts, check_classification, check_redaction
from .ir import (Column, Dedupe, DedupeColumn, Disposition, Entity, MappedColumn, Mapping, Quarantine, Rule,
                 delivery_order, materialization)
from .naming import unique_name
from .references import joins_quality
from .entity_rules import field_rules, referential_rule
from .tree import SpecTree
from .values import (basis_points, drift_settings, inner_column, retention_hours, split_source_path, time_bucket,
                     top_column, type_ir)


def entity_ir(tree: SpecTree, name, docs, lowered, relationships, by_entity) -> Entity | None:
    model = tree.model
    entity = model.value["entities"][name]
    base = ("entities", name)
    quality = joins_quality(tree, name, docs)
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
            tree.error(E.IngestionMetadataMissing, doc, ("unmapped",),
                       f"entity `{name}` declares {'dedupe' if dedupe else 'quarantine'}, so bronze must carry "
                       f"ingestion metadata; missing: {', '.join(missing)}",
                       'add ' + ", ".join(f'"$.{m}"' for m in missing) + " to `unmapped:`",
                       prefix=tree.mapping_label(doc))

    dedupe_cols: list[str] = []
    if dedupe:
        if not dedupe.get("tie_break"):
            tree.error(E.DedupeTieBreakMissing, model, base + ("dedupe",),
                       "dedupe keep: latest_by needs `tie_break`: without it two rows sharing a "
                       f"`{dedupe['field']}` make the surviving row arbitrary",
                       "add tie_break: [_load_id] (or another column that orders ties)")
        dedupe_cols = [dedupe["field"]] + list(dedupe.get("tie_break") or [])
        for i, col in enumerate(dedupe_cols):
            if col not in fields and col not in METADATA:
                path = base + ("dedupe", "field") if i == 0 else base + ("dedupe", "tie_break", i - 1)
                close = difflib.get_close_matches(col, known_columns, n=1)
                tree.error(E.GuardrailError, model, path, f"dedupe column `{col}` is not a field of `{name}` "
                           "nor an ingestion metadata column (_load_id, _ingested_at, _source_row_id)",
                           f"did you mean `{close[0]}`?" if close else None)

    folded: dict[str, str] = {}
    for fname in fields:
        first = folded.setdefault(fname.lower(), fname)
        if first != fname:
            tree.error(E.GuardrailError, model, base + ("fields", fname),
                       f"fields `{first}` and `{fname}` differ only in case: DuckDB, and every engine for "
                       "unquoted names, reads them as one column, so one value would be lost", "rename one of them")
    for i, expr in enumerate(entity.get("partition_by", [])):
        col, path = inner_column(expr), base + ("partition_by", i)
        if col not in known_columns:
            close = difflib.get_close_matches(col, known_columns, n=1)
            tree.error(E.GuardrailError, model, path, f"partition column `{col}` is not a column of `{name}`",
                       f"did you mean `{close[0]}`?" if close else "name one of the entity's fields")
        elif "(" in expr and col in types:
            allowed = ("timestamp",) if expr.strip().startswith("hours(") else ("date", "timestamp")
            if types[col].name not in allowed:
                tree.error(E.GuardrailError, model, path, f"`{expr}` buckets `{col}` by time, but `{col}` is {types[col]}",
                           f"partition by `{col}` itself, or bucket a {' or '.join(allowed)} field")
    if entity.get("scd") == "type2" and len(entity["key"]) > 1:
        tree.error(E.GuardrailError, model, base + ("key",),
                   f"entity `{name}` is `scd: type2`, kept as a dbt snapshot, which is keyed on one column; "
                   f"this key has {len(entity['key'])}: {', '.join(entity['key'])}",
                   "key the entity on one column (build a surrogate key upstream), or use scd: type1")

    mapping_irs: list[Mapping] = []
    rules: list[Rule] = []
    generated: list[str] = []
    # On a merged entity a field rule judges the rows of the mapping that declares it (it sits
    # beside that mapping's transform), so it carries `mappings`; the same rule declared by
    # several mappings (every implicit `coercible` of a column they all map) is one rule.
    seen: dict | None = {} if len(docs) > 1 else None   # (see field_rules)
    for doc in docs:
        mir = mapping_ir(tree, name, entity, doc, lowered, quarantine)
        mapping_irs.append(mir)
        if quality:
            rules += field_rules(tree, name, entity, doc, lowered, types, dedupe_cols, generated,
                                 scope=mir.name if seen is not None else None, seen=seen)
    # A rule reading a field no mapping provides would judge NULL on every row, silently: refused.
    # (On a merged entity a field some mappings provide is NULL on the others' rows by design.)
    provided = {c for d in docs for section in ("key", "fields") for c in d.value.get(section, {})}
    for i, rule in enumerate(entity.get("quality", [])):
        if rule["rule"] == "referential":
            r = referential_rule(tree, name, entity, i, rule, relationships, types, rules, by_entity)
            unfed = [f for f, _ in r.pairs if f not in provided] if r and docs else []
            if unfed:
                tree.error(E.GuardrailError, model, base + ("quality", i, "via"), _unfed_message(name, unfed, docs),
                           "map the field in a mapping of the entity, or drop the rule")
                continue
            if r:
                rules.append(dataclasses.replace(r, name=unique_name(r.name, generated)))
    authored = set()
    for i, rule in enumerate(entity.get("quality", [])):
        if rule["rule"] != "expression":
            continue
        path = base + ("quality", i)
        if rule["name"] in generated:
            tree.error(E.GuardrailError, model, path + ("name",),
                       f"rule name `{rule['name']}` is already the generated name of another rule of `{name}`",
                       "choose a different name for the expression rule")
            continue
        if rule["name"] in authored:
            tree.error(E.GuardrailError, model, path + ("name",), f"duplicate rule name `{rule['name']}` in `{name}`",
                       "give each expression rule its own name")
            continue
        authored.add(rule["name"])
        from ..guardrails.expression import ExpressionError, check_expression  # sqlglot: only when needed
        try:
            checked = check_expression(rule["expr"], known_columns,
                                       [c for c in known_columns if c in types and types[c].name == "bool"])
        except ExpressionError as exc:
            tree.error(E.GuardrailError, model, path + ("expr",), str(exc),
                       "one boolean condition over the entity's own columns, e.g. `discount <= unit_price`")
            continue
        except (RecursionError, ValueError, TypeError) as exc:  # sqlglot on pathological input
            tree.error(E.GuardrailError, model, path + ("expr",), f"expr cannot be parsed as SQL ({type(exc).__name__})",
                       "one boolean condition over the entity's own columns, e.g. `discount <= unit_price`")
            continue
        unfed = [c for c in checked.columns if c in fields and c not in provided]
        if docs and unfed:
            tree.error(E.GuardrailError, model, path + ("expr",), _unfed_message(name, unfed, docs),
                       "map the field in a mapping of the entity, or judge another field")
            continue
        rules.append(Rule(rule["name"], "expression", None, Disposition.of(rule["on_fail"]), format_path(path),
                          args={"parts": list(checked.parts), "columns": list(checked.columns)}))
    if seen:
        # a merged entity's field rule, with every mapping that declares it
        scopes = {rule_name: tuple(mappings) for rule_name, mappings in seen.values()}
        rules = [dataclasses.replace(r, mappings=scopes[r.name]) if r.name in scopes else r for r in rules]

    if any(r.quarantines for r in rules) and not quarantine:
        first = next(r for r in rules if r.quarantines)
        implicit = " (implicit: every mapped column of a quality entity gets one)" if first.implicit else ""
        tree.error(E.QuarantineRetentionMissing, model, base,
                   f"rule `{first.name}`{implicit} can quarantine rows of `{name}`, but the entity has no "
                   "`quarantine:` block saying how long rejected rows are kept",
                   "add quarantine: {retention: 90d}")
    if quarantine:
        check_redaction(tree, name, entity, quarantine, docs)
    if docs:
        check_classification(tree, name, entity, mapping_irs)
    check_asserts(tree, name, entity, docs)

    rules.sort(key=lambda r: r.name)
    return Entity(
        name=name, grain=entity["grain"], key=tuple(entity["key"]), scd=entity.get("scd", "type1"),
        materialization=materialization(entity), quality=quality, metadata=metadata,
        columns=tuple(Column(f, type_ir(types[f]), f in entity["key"]) for f in fields),
        mappings=tuple(mapping_irs),
        # a type 2 entity's deliveries of a key are its versions: without `dedupe:` the newest by
        # delivery order is the current one (with no ingestion metadata there is no order to read)
        dedupe=Dedupe(tuple(DedupeColumn(c, c in METADATA and c not in fields) for c in dedupe_cols))
               if dedupe else delivery_order() if entity.get("scd") == "type2" and metadata else None,
        quarantine=Quarantine(quarantine["retention"], retention_hours(quarantine["retention"]),
                              tuple(sorted({top_column(p) for p in quarantine.get("redact", [])})),
                              # warn by default on any quarantined row, fail only when the spec says so
                              basis_points(quarantine.get("warn_above", "0%")),
                              basis_points(quarantine["error_above"]) if "error_above" in quarantine else None)
                   if quarantine else None,
        rules=tuple(rules),
        drift=drift_settings(entity.get("drift") or {}),
        schema_changes=entity.get("schema_changes", "warn"),
        grants=entity.get("grants"),
        partition_by=tuple(inner_column(p) for p in entity.get("partition_by", [])),
        partition_buckets=tuple(time_bucket(p) for p in entity.get("partition_by", [])),
        asserts=tuple(assert_irs(tree, name, entity)),
        docs=dict(_dbt_metadata(entity), columns={f: _dbt_metadata(entity["fields"][f]) for f in fields}),
    )


def _unfed_message(name, unfed, docs) -> str:
    which = ", ".join(f"`{c}`" for c in unfed)
    by = f"the mapping of `{name}`" if len(docs) == 1 else f"any of the {len(docs)} mappings of `{name}`"
    return (f"the rule reads {which}, which {by} does not provide: it would be NULL on every row, and the rule "
            "would judge nothing")


def mapping_ir(tree: SpecTree, name, entity, doc, lowered, quarantine) -> Mapping:
    v = doc.value
    label = tree.mapping_label(doc)
    columns = []
    read = set()
    for section in ("key", "fields"):
        for col, spec in v.get(section, {}).items():
            low: Lowered | None = lowered.get((id(doc), col))
            if low is None:
                continue
            column, json_path = split_source_path(spec["from"])
            read.add(column)
            columns.append(MappedColumn(col, column, json_path, tuple(low.steps), low.nullifying, low.casts,
                                        f"{label}.{format_path((section, col))}"))
    raw = set(read) | {top_column(p) for p in v.get("unmapped", [])}
    if quarantine:
        # case-insensitively: on DuckDB (and for unquoted names everywhere) `Notes` is `notes`,
        # and a redaction that missed a spelling would keep the payload it exists to drop
        redacted = {top_column(p).lower() for p in quarantine.get("redact", [])}
        raw = {c for c in raw if c.lower() not in redacted}
    return Mapping(v["source"], f"{v['source']}->{name}", 1, tuple(columns), tuple(sorted(raw)), tuple(sorted(read)),
                   tuple(sorted(top_column(p) for p in v.get("unmapped", []))))
