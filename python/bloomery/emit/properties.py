"""The YAML properties files: one per entity (its models, snapshot, columns and tests) and the
bronze sources they read.

Separate because it is documentation and tests, not routing: a description or a user's test
changes these files and no model (the models' entity literal carries no `docs`).
"""
from __future__ import annotations

import yaml

from ..resolve import ProjectIR
from ..resolve.ir import Entity
from ..vocabulary import METADATA, UNKNOWN_MEMBER
from .audits import _attach_asserts, _audits, _tagged, _user_test
from .nodes import YAML_HEADER, _entity_tags, _grants, _merged
from .yaml_data import _data, _prose, _quoted_name, _user_config, _version_key


def _sources_yaml(project: ProjectIR) -> str:
    tables = []
    for source in project.sources:
        table = {"name": source["name"],
                 "description": "Bronze relation read by the mapping of "
                                + ", ".join(f"entity `{e}`" for e in source["entities"]) + "."}
        if "freshness" in source:
            # the package's own cast of `_ingested_at` (an offset converted to UTC, as the audit and
            # dedupe read it): a loaded_at_query is rendered when freshness runs, with the package's
            # macros in scope, where a loaded_at_field is SQL written into the query as it stands
            table["loaded_at_query"] = ("select max({{ bloomery.safe_cast(adapter.quote('_ingested_at'), "
                                        "{'name': 'timestamp'}) }}) from {{ this }}")
            table["freshness"] = {k: v for k, v in sorted(source["freshness"].items())}
        tables.append(table)
    doc = {"version": 2, "sources": [{
        "name": "bronze",
        "description": "Raw deliveries as ingested; bloomery never writes here (schema: var bloomery_bronze_schema).",
        "schema": "{{ var('bloomery_bronze_schema', target.schema) }}",
        "tables": tables,
    }]}
    return YAML_HEADER + yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=120)


def _entity_yaml(entity: Entity) -> str:
    name = entity.name
    rule_list = ", ".join(f"{r.name} ({r.disposition.spec})" for r in entity.rules) or "none"
    docs = entity.docs
    columns = []
    for c in entity.columns:
        typed = f"{c.type['name']}{' (key)' if c.key else ''}"
        own = docs["columns"].get(c.name) or {}
        column = {"name": c.name, "description": _prose(f"{own['description']} [{typed}]" if own.get("description")
                                                           else typed)}
        config = _user_config(own)
        if config:
            column["config"] = config
        columns.append(column)
    for k, delivered in entity.delivered:
        columns.append({"name": delivered, "description": _prose(
            f"`{k}` as the source delivered it: `{k}` holds '{UNKNOWN_MEMBER}' for an orphan, and two orphans of "
            "different parents stay two rows of the key (this column, not the rewritten one, identifies the row).")})
    quality_columns = [
        {"name": "_quality_flags", "description": "Rules this row fired (flag and fail), sorted; empty when clean."},
        {"name": "_quality_ok", "description": "True when `_quality_flags` is empty."},
    ]
    metadata = [{"name": m, "description": "Ingestion metadata, as stored in bronze."}
                for m in METADATA] if entity.metadata else []
    if _merged(entity):
        metadata.append({"name": "_source", "description": "Bronze relation the row came from (the entity merges "
                                                           "several mappings)."})
    staged_tests, entity_tests, ledger_tests = _audits(entity)
    _attach_asserts(entity, columns, taken={next(iter(t.values()))["name"] for t in staged_tests + entity_tests + ledger_tests})
    # the user's own tests: model-level ones on the entity, field ones on their column
    entity_tests += [_user_test(u) for u in docs["tests"]]
    for column in columns:
        own = docs["columns"].get(column["name"]) or {}
        if own.get("tests"):
            column.setdefault("data_tests", []).extend(_user_test(u) for u in own["tests"])
    # every node of the entity carries its tag (and the user's): tests included, whose tags dbt
    # takes from their own config and their column, never from the model's
    tags = _entity_tags(entity)
    for tests in (staged_tests, entity_tests, ledger_tests, *(c.get("data_tests", []) for c in columns)):
        _tagged(tests, tags)
    entity_text = f"{entity.grain}. Rows kept by the quality split."
    if docs["description"]:
        entity_text = f"{docs['description']}\n\n{entity_text}"
    models = [
        {"name": f"{name}__staged",
         "description": f"Every candidate row of `{name}` in this run, transformed, deduplicated and judged once "
                        f"(route: keep, quarantine or deduped). Rules: {rule_list}.",
         **({"data_tests": staged_tests} if staged_tests else {})},
        {"name": name, "description": _prose(entity_text),
         **({"data_tests": entity_tests} if entity_tests else {}),
         "columns": columns + metadata + quality_columns},
    ]
    snapshots = []
    if entity.scd == "type2":
        kept_model = models.pop()
        models.append({"name": f"{name}__kept", "description": f"This run's kept rows of `{name}`, versioned by the "
                                                               f"snapshot `{name}`."})
        snapshots.append({
            "name": name,
            "description": kept_model["description"] + " History kept by dbt (type 2): dbt_valid_from / dbt_valid_to.",
            "relation": f"ref('{name}__kept')",
            "config": {"unique_key": _version_key(entity), "strategy": "check",
                       "check_cols": [_quoted_name(c.name) for c in entity.columns] + ["_quality_flags"]
                                     # a version names the source row it came from: a key delivered
                                     # again unchanged under a new source row is a new version, so
                                     # the current version is always the ledger's kept delivery
                                     + (["_source_row_id"] if entity.metadata else []),
                       "tags": tags, **({"meta": _data(docs["meta"])} if docs["meta"] else {}),
                       **({"grants": _grants(entity)} if entity.grants else {})},
            **({"data_tests": kept_model["data_tests"]} if kept_model.get("data_tests") else {}),
            "columns": kept_model["columns"],
        })
    if entity.quarantine:
        models.append({
            "name": f"{name}__reject",
            "description": f"Rows of `{name}` diverted by a quarantine rule, with their bronze payload for replay. "
                           f"Retention {entity.quarantine.retention}.",
            "columns": [{"name": c, "description": d} for c, d in _REJECT_COLUMNS],
        })
    if entity.metadata:
        models.append({
            "name": f"{name}__ledger",
            "description": f"Every bronze delivery of `{name}` judged so far, by identity, with its route (keep, "
                           "quarantine, deduped, expired); an incremental build judges what it does not hold.",
            "data_tests": ledger_tests,
            "columns": [{"name": c, "description": d} for c, d in _LEDGER_COLUMNS],
        })
    config = _user_config(docs)   # the user's meta and tags on every model of the entity
    if config:
        for model in models:
            model["config"] = config
    doc = {"version": 2, "models": models, **({"snapshots": snapshots} if snapshots else {})}
    return YAML_HEADER + yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=120)


_REJECT_COLUMNS = [
    ("reject_id", "sha256 of the bronze relation and `_source_row_id`: one reject row per source row."),
    ("source_relation", "Bronze relation the row came from."),
    ("mapping", "Mapping that produced the row (`<source>-><entity>`)."),
    ("mapping_version", "Version of the mapping document."),
    ("failed_rules", "Every rule the row fired, flag and fail included, sorted."),
    ("key_values", "The entity key as coerced (may hold nulls)."),
    ("raw", "The bronze columns the mapping reads or lists as unmapped, minus redacted ones."),
    ("_load_id", "Load of the latest delivery."),
    ("_ingested_at", "Ingestion time of the latest delivery."),
    ("_source_row_id", "Source row identity, stable across re-deliveries."),
    ("first_seen", "When the problem started: the first delivery of the row that was diverted; never moves."),
    ("last_seen", "When the source last delivered the row."),
    ("resolved_at", "Set when the row left quarantine (replayed, or superseded by a newer row of its key)."),
    ("last_evaluated_at", "When replay last re-judged the row."),
]


_LEDGER_COLUMNS = [
    ("source_relation", "Bronze relation the delivery is in."),
    ("_source_row_id", "Source row identity."),
    ("_load_id", "Load that delivered it."),
    ("_ingested_at", "Ingestion time of the delivery, as stored in bronze."),
    ("route", "Where its latest judging put it: keep, quarantine (the reject table), deduped, or expired (its "
              "reject row was deleted by retention)."),
    ("winner_row_id", "For a deduped delivery: the source row it lost its key to."),
    ("run_id", "dbt invocation_id of the run that judged it."),
]
