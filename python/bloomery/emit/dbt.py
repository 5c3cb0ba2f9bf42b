"""dbt files for a resolved project: thin models that call the package's macros, and YAML.

Per entity: `<entity>__staged` (the one pass that judges every row), `<entity>` (kept rows) and,
with `quarantine:`, `<entity>__reject`. Each model carries its resolved entity as a literal and
calls one macro; the macros decide nothing the compiler could have decided.

Every file written starts with a marker line. A later compile removes marked files it no longer
writes, and never touches a file without the marker.

This module is the entry point: it decides which files a project gets and composes the modules
that render them (entity_models and properties: one entity's SQL
and YAML; reconcile and mart: the project-level models; clashes: unique node and test names;
output: the output folder and its fingerprint).
"""
from __future__ import annotations

from pathlib import Path

from ..resolve import ProjectIR
from ..guardrails.targets import refuse_unsupported
from .clashes import _Files
from .entity_models import _entity_sql, _ledger_sql, _reject_sql, _staged_sql
from .mart import (_bronze_columns_sql, _bronze_columns_yaml, _drift_sql, _drift_tests, _drift_yaml, _mart_sql,
                   _mart_yaml, _quality_sql, _quarantine_rate_sql)
from .output import FINGERPRINT, Changes, apply, compare, fingerprint
from .properties import _entity_yaml, _sources_yaml
from .reconcile import _reconcile_sql, _reconcile_yaml

__all__ = ["render", "write", "plan_changes", "refuse_unsupported", "Changes", "FINGERPRINT"]


def render(project: ProjectIR) -> dict[str, str]:
    """file name -> content, for the whole project. Pure and deterministic."""
    refuse_unsupported(project)
    files = _Files(project)
    files.put("_bloomery_sources.yml", _sources_yaml(project))
    entities = project.entities
    for name, entity in entities.items():
        origin = f"entities.{name}"
        files.put(f"{name}__staged.sql", _staged_sql(entity), origin)
        if entity.scd == "type2":
            files.put(f"{name}__kept.sql", _entity_sql(entity), origin)   # the snapshot `<entity>` versions it
        else:
            files.put(f"{name}.sql", _entity_sql(entity), origin)
        if entity.quarantine:
            files.put(f"{name}__reject.sql", _reject_sql(entity), origin)
        if entity.metadata:
            files.put(f"{name}__ledger.sql", _ledger_sql(entity), origin)
        files.put(f"{name}.yml", _entity_yaml(entity), origin)
    for i, check in enumerate(project.reconcile):
        files.put(f"{check['name']}__reconcile.sql", _reconcile_sql(check, entities), f"reconcile[{i}]")
    if project.reconcile:
        files.put("_bloomery_reconcile.yml", _reconcile_yaml(project.reconcile))
    judged = [e for e in entities.values() if e.rules]
    quality = project.counted()
    drifting = [e for e in judged if e.drift["severity"] != "ignore"]
    watched = [e for e in entities.values() if e.schema_changes != "ignore"]
    drift_tests = _drift_tests(list(entities.values()), drifting, watched, quality)
    if quality:
        files.put("mart_data_quality.sql", _mart_sql(judged, project.reconcile))
        files.put("quality_quarantine_rate.sql", _quarantine_rate_sql(judged, project.reconcile))
        for name in quality:
            files.put(f"{name}__quality.sql", _quality_sql(entities[name], project.reconcile), f"entities.{name}")
        files.put("mart_data_quality.yml", _mart_yaml(judged, quality, drift_tests))
    if drifting:
        files.put("quality_drift.sql", _drift_sql(drifting, project.reconcile))
        files.put("quality_drift.yml", _drift_yaml())
    if watched:
        files.put("quality_bronze_columns.sql", _bronze_columns_sql(watched))
        files.put("quality_bronze_columns.yml", _bronze_columns_yaml(drift_tests["quality_bronze_columns"]))
    files.refuse_test_name_clashes(entities)
    files.refuse_bronze_and_long_names(entities)
    return dict(files)


def write(project: ProjectIR, out_dir: Path, specs_dir: Path | None = None) -> dict[str, list[str]]:
    """Write the project's files; return what was written, unchanged and removed. It applies
    exactly the plan `plan_changes` reports (`bloomery compile --check` reads the same plan)."""
    return apply(plan_changes(project, out_dir, specs_dir), out_dir)


def plan_changes(project: ProjectIR, out_dir: Path, specs_dir: Path | None = None) -> Changes:
    """Compare what the project renders, plus its fingerprint (output.fingerprint), with
    `out_dir`; writes nothing."""
    files = render(project)
    files[FINGERPRINT] = fingerprint(files, out_dir, specs_dir)
    return compare(files, out_dir)
