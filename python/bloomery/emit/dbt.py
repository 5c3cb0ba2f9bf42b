"""dbt files for a resolved project: thin models that call the package's macros, and YAML.

Per entity: `<entity>__staged` (the one pass that judges every row), `<entity>` (kept rows) and,
with `quarantine:`, `<entity>__reject`. Each model carries its resolved entity as a literal and
calls one macro; the macros decide nothing the compiler could have decided.

Every file written starts with a marker line. A later compile removes marked files it no longer
writes, and never touches a file without the marker.
"""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from ..compiler import ProjectIR
from ..errors import EmitError, Location, UnsupportedByTarget
from .entity_models import _entity_sql, _ledger_sql, _reject_sql, _staged_sql
from .graph import _decorate
from .mart import (_bronze_columns_sql, _bronze_columns_yaml, _drift_sql, _drift_yaml, _mart_sql, _mart_yaml,
                   _quarantine_rate_sql)
from .nodes import MARKER, SQL_HEADER, _config
from .properties import _entity_yaml, _sources_yaml
from .reconcile import _reconcile_sql, _reconcile_yaml


def render(project: ProjectIR) -> dict[str, str]:
    """file name -> content, for the whole project. Pure and deterministic."""
    refuse_unsupported(project)
    files = _Files(project)
    files.put("_bloomery_sources.yml", _sources_yaml(project))
    entities = _decorate(project)
    for name, entity in entities.items():
        origin = f"entities.{name}"
        files.put(f"{name}__staged.sql", _staged_sql(entity), origin)
        if entity["scd"] == "type2":
            files.put(f"{name}__kept.sql", _entity_sql(entity), origin)   # the snapshot `<entity>` versions it
        else:
            files.put(f"{name}.sql", _entity_sql(entity), origin)
        if entity["quarantine"]:
            files.put(f"{name}__reject.sql", _reject_sql(entity), origin)
        if entity["metadata"]:
            files.put(f"{name}__ledger.sql", _ledger_sql(entity), origin)
        files.put(f"{name}.yml", _entity_yaml(entity), origin)
    for i, check in enumerate(project.reconcile):
        files.put(f"{check['name']}__reconcile.sql", _reconcile_sql(check, entities), f"reconcile[{i}]")
    if project.reconcile:
        files.put("_bloomery_reconcile.yml", _reconcile_yaml(project.reconcile))
    judged = [e for e in entities.values() if e["rules"]]
    if judged or project.reconcile:
        files.put("mart_data_quality.sql", _mart_sql(judged, project.reconcile))
        files.put("quality_quarantine_rate.sql", _quarantine_rate_sql(judged, project.reconcile))
        files.put("mart_data_quality.yml", _mart_yaml(judged))
    drifting = [e for e in judged if e["drift"]["severity"] != "ignore"]
    if drifting:
        files.put("quality_drift.sql", _drift_sql(drifting, project.reconcile))
        files.put("quality_drift.yml", _drift_yaml(drifting))
    watched = [e for e in entities.values() if e["schema_changes"] != "ignore"]
    if watched:
        files.put("quality_bronze_columns.sql", _bronze_columns_sql(watched))
        files.put("quality_bronze_columns.yml", _bronze_columns_yaml(watched))
    files.refuse_test_name_clashes(entities)
    return dict(files)


class _Files(dict):
    """The generated files, by name. Every node bloomery generates is named after something in the
    spec, and dbt needs node names unique in a project: an entity `order__reject` beside an entity
    `order`, an entity named `quality_drift`, or a rule whose test takes an audit's name would
    otherwise overwrite a file here or stop `dbt parse`. Both are refused at compile, located."""

    PACKAGE = "the package's own nodes"

    def __init__(self, project: ProjectIR):
        super().__init__()
        self.project, self.origin = project, {}

    def put(self, name: str, text: str, origin: str = "") -> None:
        node, clash = name.rsplit(".", 1)[0], name if name in self else None
        if clash is not None:
            raise self.project.relocate(EmitError(
                f"`{node}` would be generated twice: for {self.origin[clash] or self.PACKAGE} and for "
                f"{origin or self.PACKAGE}", Location(path=origin or self.origin[clash]),
                "rename the entity or check: names ending in __staged, __kept, __reject, __ledger or "
                "__reconcile, and mart_data_quality, quality_quarantine_rate, quality_drift and quality_bronze_columns, are "
                "bloomery's"))
        self[name], self.origin[name] = text, origin

    def refuse_test_name_clashes(self, entities: dict) -> None:
        seen: dict[str, str] = {}
        for file, text in sorted(self.items()):
            if not file.endswith(".yml"):
                continue
            origin = self.origin[file]
            doc = yaml.safe_load(text) or {}
            for node in doc.get("models", []) + doc.get("snapshots", []):
                tests = list(node.get("data_tests") or [])
                for column in node.get("columns") or []:
                    tests += column.get("data_tests") or []
                for test in tests:
                    body = next(iter(test.values())) if isinstance(test, dict) else None
                    name = body.get("name") if isinstance(body, dict) else None
                    if name is None:
                        continue
                    if name in seen:
                        raise self.project.relocate(EmitError(
                            f"two generated tests are named `{name}` (for {seen[name] or self.PACKAGE} and for "
                            f"{origin or self.PACKAGE}): dbt needs test names unique in a project",
                            Location(path=self._path_of(name, origin or seen[name], entities)),
                            "rename the rule or test: `<entity>_<rule>` must not be the name of one of bloomery's "
                            "audits of the entity (conservation, ingestion_metadata, key_unique, source_collision, "
                            "quarantine_rate, drift_quarantine_rate, drift_volume, bronze_schema) or of another test"))
                    seen[name] = origin

    @staticmethod
    def _path_of(test: str, origin: str, entities: dict) -> str:
        """The spec path of the rule a test is named after, else the entity's."""
        name = origin.removeprefix("entities.")
        for rule in (entities.get(name) or {}).get("rules", []):
            if test in (f"{name}_{rule['name']}", f"{name}_{rule['name']}_drift") and rule.get("path"):
                return rule["path"]
        return origin


def write(project: ProjectIR, out_dir: Path, specs_dir: Path | None = None) -> dict[str, list[str]]:
    """Write the project's files; return what was written, unchanged and removed. It applies
    exactly the plan `plan_changes` reports (`bloomery compile --check` reads the same plan)."""
    plan = plan_changes(project, out_dir, specs_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in sorted(plan.missing + plan.changed):
        (out_dir / name).write_text(plan.files[name], encoding="utf-8")
    for name in plan.stale:
        (out_dir / name).unlink()
    return {"written": sorted(plan.missing + plan.changed), "unchanged": plan.unchanged, "removed": plan.stale}


FINGERPRINT = "_bloomery_compile.sql"


@dataclass
class Changes:
    """What a compile changes in its output folder: `files` is what the folder must hold (name ->
    content); every name is missing, changed or unchanged; `stale` are files an earlier compile
    wrote (marker on their first line) that this one does not."""
    files: dict[str, str]
    missing: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)

    @property
    def up_to_date(self) -> bool:
        return not (self.missing or self.changed or self.stale)


def plan_changes(project: ProjectIR, out_dir: Path, specs_dir: Path | None = None) -> Changes:
    """Compare what the project renders (plus its fingerprint) with `out_dir`; writes nothing.

    The fingerprint `_bloomery_compile.sql` is an ephemeral model (it builds nothing) whose meta
    the package's on-run-start check (bloomery.assert_compiled) reads: the IR version the models
    were compiled to, and the md5 of each generated model as dbt hands it to Jinja (`raw_code`,
    the file stripped), so dbt refuses models from another compile or edited by hand. dbt reads
    no other file, so whether the specs changed since is `compile --check`'s to say."""
    from .. import __version__
    from ..plan.facts import IR_VERSION   # the IR's shape: what the macros read
    files = render(project)
    root = next((p for p in [out_dir.resolve(), *out_dir.resolve().parents] if (p / "dbt_project.yml").is_file()),
                out_dir.resolve())

    def rel(path: Path) -> str:   # where compile ran must not change the file: relative to the dbt project
        return Path(os.path.relpath(path.resolve(), root)).as_posix()

    stamp = {"ir_version": IR_VERSION, "bloomery_version": __version__,
             "specs": rel(specs_dir) if specs_dir is not None else None, "out": rel(out_dir),
             "models": {name[:-4]: hashlib.md5(text.strip().encode("utf-8")).hexdigest()
                        for name, text in sorted(files.items()) if name.endswith(".sql")}}
    files[FINGERPRINT] = (SQL_HEADER + "-- the compile these models come from, checked by the bloomery package before dbt "
                          "runs them (bloomery.assert_compiled); ephemeral: it builds nothing\n"
                          + _config(materialized="ephemeral", meta={"bloomery_compile": stamp})
                          + "select 1 as compiled\n")
    changes = Changes(files)
    for name, content in sorted(files.items()):
        path = out_dir / name
        if not path.is_file():
            changes.missing.append(name)
        elif path.read_text(encoding="utf-8") == content:
            changes.unchanged.append(name)
        else:
            changes.changed.append(name)
    if out_dir.is_dir():
        for path in sorted(out_dir.iterdir()):
            if path.name in files or not path.is_file() or path.suffix not in (".sql", ".yml"):
                continue
            with path.open(encoding="utf-8") as fh:
                first = fh.readline()
            if MARKER in first:
                changes.stale.append(path.name)
    return changes


# ----------------------------------------------------------------------------------------------
def refuse_unsupported(project: ProjectIR):
    """What no dbt target can run, whatever the dialect: `check` refuses it too."""
    for entity in project.entities.values():
        for mapping in entity["mappings"]:
            for column in mapping["columns"]:
                for step in column["steps"]:
                    if step["op"] != "convert":
                        continue
                    path = f"{column.get('path', 'mapping[' + mapping['mapping'] + ']')}.transform[{step.get('chain_index', 0)}]"
                    raise project.relocate(UnsupportedByTarget(
                        f"`convert` in the chain of {entity['entity']}.{column['name']} needs currency rates "
                        "that no dbt target here provides", Location(path=path),
                        "convert upstream, or drop the step"))
