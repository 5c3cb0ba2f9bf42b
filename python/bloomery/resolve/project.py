"""The compile driver and its last stage: from a spec folder to the `ProjectIR`.

Stages, each collecting its errors before the next runs (so a user sees every problem of a
kind at once, without cascades from an earlier one):

  parse      grammar.py     YAML, document kinds, JSON Schema, grammars the schema cannot say
  resolve    references.py  mappings to entities and fields, relationships, canonical links
  typecheck  typecheck.py   declared types, transform chains
  build      this module    the IR: per entity (entity.py, entity_rules.py, checks.py), sources
                            and freshness, reconcile and coverage (document_checks.py), the
                            facts that span entities (graph.py), and the contract facts
                            `bloomery plan` compares

The output is what the emitter turns into dbt files; the macros render it.
"""
from __future__ import annotations

import gc
from pathlib import Path

from .. import errors as E
from .document_checks import coverage_irs, reconcile_irs
from .entity import entity_ir
from .grammar import load, parse_semantics
from .graph import graph_facts
from .ir import ProjectIR, materialization
from .references import resolve
from .tree import SpecTree
from .typecheck import typecheck
from .values import freshness_duration, freshness_minutes


def check_project(specs_dir: Path) -> ProjectIR:
    """Compile a spec tree; raise BloomeryErrors with every error found, sorted by location."""
    # A compile builds many small objects (YAML nodes, documents, IR) and frees almost none
    # until it returns, so the cyclic collector's passes over them are pure cost: about a
    # quarter of a large tree's check. Paused for the compile, restored as it was.
    paused = gc.isenabled()
    gc.disable()
    try:
        return _run(SpecTree(specs_dir))
    finally:
        if paused:
            gc.enable()


def _run(tree: SpecTree) -> ProjectIR:
    load(tree)
    tree.stage_done()
    parse_semantics(tree)
    tree.stage_done()
    entities = resolve(tree)
    tree.stage_done()
    lowered = typecheck(tree, entities)
    tree.stage_done()
    project = build(tree, entities, lowered)
    tree.stage_done()
    return project


def build(tree: SpecTree, by_entity, lowered) -> ProjectIR:
    model = tree.model.value
    relationships = unique_relationships(tree)
    project = ProjectIR(entities={}, relationships=list(relationships.values()), locate=tree.locator())
    for name in sorted(model["entities"]):
        docs = by_entity.get(name, [])
        ir = entity_ir(tree, name, docs, lowered, relationships, by_entity)
        # An entity no mapping feeds is still checked, but builds no relation.
        if ir is not None and docs:
            project.entities[name] = ir
    for doc in tree.mappings:
        v = doc.value
        if v["target"] not in project.entities:
            continue
        ir = project.entities[v["target"]]
        source = {"name": v["source"], "entities": [v["target"]]}
        if "freshness" in v:
            if not ir.metadata:
                tree.error(E.FreshnessWithoutIngestionMetadata, doc, ("freshness",),
                           f"freshness reads `_ingested_at`, but entity `{v['target']}` declares neither "
                           "`quarantine:` nor `dedupe:`, so bronze need not carry it",
                           "declare dedupe: or quarantine: on the entity, or drop freshness", prefix=tree.mapping_label(doc))
            fresh = v["freshness"]
            # dbt reports error over warn: an error threshold below the warning one would make
            # the warning unreachable, which is a typo, not a policy
            if "warn_after" in fresh and "error_after" in fresh \
                    and freshness_minutes(fresh["error_after"]) < freshness_minutes(fresh["warn_after"]):
                tree.error(E.GuardrailError, doc, ("freshness", "error_after"),
                           f"freshness error_after {fresh['error_after']} is shorter than warn_after "
                           f"{fresh['warn_after']}: the warning could never be reported",
                           "make error_after at least warn_after (equal is allowed), or drop warn_after",
                           prefix=tree.mapping_label(doc))
            source["freshness"] = {k: freshness_duration(val) for k, val in fresh.items()}
        # one bronze relation feeding several entities is one dbt source, with one freshness
        shared = next((s for s in project.sources if s["name"] == v["source"]), None)
        if shared is None:
            project.sources.append(source)
            continue
        if "freshness" in source and shared.setdefault("freshness", source["freshness"]) != source["freshness"]:
            tree.error(E.GuardrailError, doc, ("freshness",),
                       f"`{v['source']}` also feeds entity `{shared['entities'][0]}`, with another freshness; "
                       "a bronze relation has one freshness", "declare the same freshness on every mapping "
                       "of this source, or on one of them", prefix=tree.mapping_label(doc))
        shared["entities"].append(v["target"])
    project.sources.sort(key=lambda s: s["name"])
    project.reconcile = reconcile_irs(tree, by_entity)
    project.coverage = coverage_irs(tree, by_entity, relationships)
    # Referential rules may form a cycle: graph_facts cuts it deterministically (docs/design.md).
    project.entities = graph_facts(project.entities, project.coverage)
    project.files = sorted([tree.model.file] + [d.file for d in tree.mappings]
                           + ([tree.catalog.file] if tree.catalog else []))
    project.contract = contract_facts(tree)
    return project


def unique_relationships(tree: SpecTree) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for i, rel in enumerate(tree.model.value.get("relationships", [])):
        if rel["name"] in out:
            tree.error(E.GuardrailError, tree.model, ("relationships", i, "name"),
                       f"a second relationship named `{rel['name']}`: rules and checks could not tell them apart",
                       "rename one of them")
            continue
        out[rel["name"]] = rel
    return out


def contract_facts(tree: SpecTree) -> dict:
    """What a field promises its readers beyond what the pipeline does, for `bloomery plan`:
    `required` (optional -> required is breaking), `renamed_from` (a rename, not a drop and an
    add), `canonical`, `classification`, and each entity's materialization. The models never
    read these; they are taken from the documents this compile read, so plan never re-reads a
    spec file. `at` is where plan points when it refuses a change to the field."""
    model = tree.model
    entities: dict[str, dict] = {}
    for name, entity in model.value["entities"].items():
        entities[name] = {
            "materialization": materialization(entity),
            "fields": {
                fname: {
                    "required": bool(spec.get("required", False)),
                    "renamed_from": spec.get("renamed_from"),
                    "canonical": spec.get("canonical"),
                    "classification": spec.get("classification", "public"),
                    "at": model.at("entities", name, "fields", fname,
                                   "renamed_from" if "renamed_from" in spec else "type"),
                }
                for fname, spec in entity["fields"].items()
            },
        }
    return {"entities": entities}
