"""What `plan()` needs from a spec tree beyond the compiled IR.

The IR describes what the pipeline does; a few spec keys describe a contract instead and never
reach it: `required` (optional -> required is breaking), `renamed_from` (a rename, not a drop
and an add), `canonical`, `classification`. They are read here from the same documents the
compiler read, and attached to the IR as `spec_facts` by `load_project`, with `materialization`
(which the IR carries too), derived by the compiler's own `materialization()`.
"""
from __future__ import annotations

from pathlib import Path

from ..compiler import ProjectIR, check_project, materialization
from ..spec.documents import discover, read_document

# Bumped whenever the IR's shape changes in a way that makes two IRs incomparable, or the generated
# models change in a way the macros rely on (2: `materialization`, and the ledger the models read;
# 3: the quarantine thresholds, drift settings and dbt metadata, and the mart's `run_started_at`
# pre-hook and `quality_drift` model: a project compiled before them must be compiled again).
IR_VERSION = 3


def load_project(specs_dir: Path) -> ProjectIR:
    """check_project, plus the contract facts plan() compares (see module doc)."""
    specs_dir = Path(specs_dir)
    project = check_project(specs_dir)
    project.spec_facts = read_facts(specs_dir)
    project.ir_version = IR_VERSION
    return project


def read_facts(specs_dir: Path) -> dict:
    """{"entities": {name: {"materialization": str, "fields": {name: {...}}}}} for a tree that compiles."""
    entities: dict[str, dict] = {}
    specs_dir = Path(specs_dir)
    for path in discover(specs_dir):
        # named as the compiler names it, so a refusal points at the same file
        doc, _ = read_document(path, str(path.relative_to(specs_dir.parent)))
        if doc is None or doc.kind != "entity_model":
            continue
        for name, entity in (doc.value.get("entities") or {}).items():
            entities[name] = {
                "materialization": materialization(entity),
                "fields": {
                    fname: {
                        "required": bool(spec.get("required", False)),
                        "renamed_from": spec.get("renamed_from"),
                        "canonical": spec.get("canonical"),
                        "classification": spec.get("classification", "public"),
                        "at": doc.at("entities", name, "fields", fname,
                                     "renamed_from" if "renamed_from" in spec else "type"),
                    }
                    for fname, spec in (entity.get("fields") or {}).items()
                },
            }
    return {"entities": entities}


def facts_of(project: ProjectIR) -> dict | None:
    """The facts attached by load_project, or None for an IR built without them."""
    return getattr(project, "spec_facts", None)
