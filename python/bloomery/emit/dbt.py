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
from .audits import _attach_asserts, _audits, _tagged, _test, _user_test
from .graph import _decorate
from .jinja_literal import literal
from .nodes import (MARKER, SQL_HEADER, YAML_HEADER, _config, _entity_literal, _grants, _ir, _merged, _ref, _sources,
                    _tags)
from .yaml_data import _data, _prose, _quoted_name, _user_config


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
        files.put("quality_quarantine_rate.sql", (
            SQL_HEADER + _config(materialized="view", tags=_mart_tags(judged, project.reconcile))
            + "{{ bloomery.quality_quarantine_rate(ref('mart_data_quality')) }}\n"))
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


def _staged_sql(entity: dict) -> str:
    sources = _sources(entity)
    parents = sorted({(r["parent"], bool(r.get("published"))) for r in entity["rules"] if r["rule"] == "referential"})
    parents_lit = "{" + ", ".join(
        f"{literal(p)}: " + (f"bloomery.published_relation({literal(p)})" if cut else f"ref({literal(p)})")
        for p, cut in parents) + "}"
    return (SQL_HEADER + _entity_literal(entity)
            + _config(materialized="table", grants=_grants(entity), tags=_tags(entity["entity"]))
            + "{{ bloomery.quality_split(entity, " + sources + ", " + parents_lit + ") }}\n")


def _entity_sql(entity: dict) -> str:
    staged = literal(f"{entity['entity']}__staged")
    # write once: a build that creates the entity publishes the staged table itself where the
    # engine renames cheaply (macros/route/publish_staged.sql); elsewhere the hook renders `select 1`
    # (a hook does not see the model's `entity`: the mapping's names are passed as literals)
    first = entity["mappings"][0]
    publish = ["{{ bloomery.publish_staged(" + literal(first["mapping"]) + ", " + literal(first["source"])
               + ", ref(" + staged + ")) }}"]
    if entity["scd"] == "type2":
        # History is the snapshot's: this view is what it versions, this run's kept rows.
        config = _config(materialized="view", tags=_tags(entity["entity"]))
    elif entity["metadata"] and entity.get("materialization", "incremental_by_key") != "full":
        # incremental_by_key / incremental_by_partition: the batch's touched keys are deleted and
        # its kept rows appended (an IR without the key is judged incrementally by quality_split too)
        merged = ", true" if _merged(entity) else ""
        hook = ("{{ bloomery.entity_delete_touched(" + literal(entity["key"]) + ", "
                + literal(bool(entity["dedupe"])) + ", ref(" + staged + ")" + merged + ") }}")
        config = _config(materialized="incremental", incremental_strategy="append", on_schema_change="sync_all_columns",
                         pre_hook=[hook], post_hook=publish, grants=_grants(entity), tags=_tags(entity["entity"]))
    else:
        # `full`: every build judges all of bronze (quality_split's batch is none) and replaces the table
        config = _config(materialized="table", post_hook=publish, grants=_grants(entity), tags=_tags(entity["entity"]))
    deps = ""
    if entity["quarantine"]:
        # the reject table first: a run stopped between the two leaves diverted rows recorded
        # and kept rows unpublished, which the next run's re-judging of the batch completes
        deps = "-- depends_on: {{ ref(" + literal(f"{entity['entity']}__reject") + ") }}\n"
    return (SQL_HEADER + deps + _entity_literal(entity) + config
            + "{{ bloomery.entity_rows(entity, ref(" + staged + ")) }}\n")


def _ledger_sql(entity: dict) -> str:
    """`<entity>__ledger`: the bronze deliveries judged so far, by identity, with their route. It
    is built last (after the entity and its reject table): what it records is what the next
    incremental run will not judge again, so a run stopped before it leaves its batch to be
    judged again rather than lost."""
    name = entity["entity"]
    staged = literal(f"{name}__staged")
    deps = "-- depends_on: {{ ref(" + literal(name) + ") }}\n"
    if entity["quarantine"]:
        deps += "-- depends_on: {{ ref(" + literal(f"{name}__reject") + ") }}\n"
    # judged deliveries are history, as the reject table is: a full refresh must not forget the
    # diverted deliveries bronze no longer holds (their reject rows are still accounted for)
    everything = ", true" if entity.get("materialization") == "full" else ""
    forget = "{{ bloomery.ledger_forget_rejudged(ref(" + staged + ")" + everything + ") }}"
    config = _config(materialized="incremental", incremental_strategy="append", on_schema_change="fail",
                     full_refresh=False, pre_hook=[forget], tags=_tags(name))
    return SQL_HEADER + deps + config + "{{ bloomery.ledger_rows(ref(" + staged + ")) }}\n"


def _reject_sql(entity: dict) -> str:
    staged = literal(f"{entity['entity']}__staged")
    # a merged entity's rejects are matched by (bronze relation, source row id): the list of them
    sources = [m["source"] for m in entity["mappings"]]
    hook = "{{ bloomery.resolve_rejects(" + literal(sources if _merged(entity) else sources[0]) + ", ref(" + staged + ")) }}"
    purge = "{{ bloomery.purge_expired(" + str(entity["quarantine"]["retention_hours"]) + ", none, ref(" + staged + ")) }}"
    hooks = [hook, purge]
    if entity["quarantine"]["redact"]:
        # rows diverted before `redact` was widened still hold those columns in `raw`: the next
        # build strips them (after the purge, which leaves fewer rows to look at)
        hooks.append("{{ bloomery.redact_rejects(" + literal(entity["quarantine"]["redact"]) + ") }}")
    return (SQL_HEADER + _entity_literal(entity)
            + _config(materialized="incremental", incremental_strategy="delete+insert", unique_key="reject_id",
                      full_refresh=False, on_schema_change="fail", post_hook=hooks,
                      grants=_grants(entity), tags=_tags(entity["entity"]), meta={"bloomery": _ir(entity)})
            + "{{ bloomery.reject_rows(entity, ref(" + staged + "), " + _sources(entity) + ") }}\n")


def _reconcile_sql(check: dict, entities: dict) -> str:
    sides = {}
    for side in ("left", "right"):
        entity = entities[check[side]["entity"]]
        sides[side] = dict(check[side], member=entity.get("unknown_member"))
    check = dict(check, **sides)
    return (SQL_HEADER + "{%- set check = " + literal(check) + " -%}\n"
            + _config(materialized="table", tags=_tags(check["left"]["entity"], check["right"]["entity"]))
            + "{{ bloomery.reconcile(check, ref(" + literal(check["left"]["entity"]) + "), ref("
            + literal(check["right"]["entity"]) + ")) }}\n")


def _reconcile_yaml(checks: list[dict]) -> str:
    models = []
    for c in checks:
        severity = "error" if c["on_fail"] == "fail" else "warn"
        models.append({
            "name": f"{c['name']}__reconcile",
            "description": f"Reconcile `{c['name']}`: left and right per key, within {c['tolerance']}.",
            "data_tests": _tagged([_test("bloomery.bloomery_reconcile", f"{c['name']}_reconcile",
                                         f"Keys whose sides differ by more than {c['tolerance']} ({c['on_fail']}).",
                                         severity)], _tags(c["left"]["entity"], c["right"]["entity"])),
        })
    return YAML_HEADER + yaml.safe_dump({"version": 2, "models": models}, sort_keys=False, allow_unicode=True, width=120)


def _mart_tags(entities: list[dict], reconcile) -> list[str]:
    """The mart counts every judged entity (and reconcile check): each entity's selector takes it."""
    return _tags(*(e["entity"] for e in entities), *(c[s]["entity"] for c in reconcile for s in ("left", "right")))


def _mart_sql(entities: list[dict], reconcile: list[dict] = ()) -> str:
    items = []
    for e in entities:
        name = e["entity"]
        reject = "ref(" + literal(f"{name}__reject") + ")" if e["quarantine"] else "none"
        ledger = "ref(" + literal(f"{name}__ledger") + ")" if e["metadata"] else "none"
        # a merged entity is counted per mapping (its rows carry `_source`), so the mapping column
        # says which relation each count is about and the rows still add up to the entity
        for m in e["mappings"]:
            rules = [r for r in e["rules"] if not r.get("mappings") or m["mapping"] in r["mappings"]]
            items.append("{" + ", ".join([
                f'"entity": {literal(name)}', f'"mapping": {literal(m["mapping"])}',
                f'"scd": {literal(e["scd"])}', f'"unknown_member": {literal(e.get("unknown_member"))}',
                f'"rules": {literal([[r["name"], r["disposition"]] for r in rules])}',
                f'"kept": ref({literal(name)})', f'"reject": {reject}', f'"ledger": {ledger}']
                + ([f'"source": {literal(m["source"])}'] if _merged(e) else [])) + "}")
    checks = ["{" + ", ".join([f'"name": {literal(c["name"])}', f'"entity": {literal(c["entity"])}',
                               f'"mapping": {literal(c["mapping"])}', f'"on_fail": {literal(c["on_fail"])}',
                               f'"model": ref({literal(c["name"] + "__reconcile")})']) + "}" for c in reconcile]
    # full_refresh=False: the mart is the history of runs, which a `--full-refresh` of the
    # entities must not erase (as the reject table's account must not be)
    # the pre-hook adds `run_started_at` to a mart built before it was a column (the one
    # deliberate schema change: everything else still fails on_schema_change)
    return (SQL_HEADER + _config(materialized="incremental", incremental_strategy="delete+insert",
                                 unique_key="run_id", on_schema_change="fail", full_refresh=False,
                                 pre_hook=["{{ bloomery.mart_add_run_started_at() }}"],
                                 tags=_mart_tags(entities, reconcile))
            + "{{ bloomery.mart_data_quality([\n    " + ",\n    ".join(items) + "\n], [\n    "
            + ",\n    ".join(checks) + "\n]) }}\n")


def _mart_yaml(entities: list[dict] = ()) -> str:
    columns = [
        ("entity", "Entity judged."), ("mapping", "Mapping that fed it (`<source>-><entity>`)."),
        ("rule", "Rule name, or `(entity)` on the accounting row."),
        ("disposition", "Effective disposition (`unknown_member` counts as flag), or `(entity)`."),
        ("run_id", "dbt invocation_id of the run that took this snapshot."), ("run_date", "Start date of that run."),
        ("rows_evaluated", "Accounting row only: entity rows plus unresolved rejects."),
        ("rows_failed", "Rule rows only: rows of the population that fired the rule."),
        ("rows_quarantined", "Accounting row only: unresolved rejects."),
        ("rows_deduped", "Accounting row only: bronze rows that lost dedupe to a better row of their key."),
        ("run_day", "run_date bucket."), ("run_week", "Monday of the run's week."), ("run_month", "First day of the month."),
        ("run_quarter", "First day of the quarter."), ("run_year", "First day of the year."),
        ("run_started_at", "When the run started (UTC); orders the runs of one day. Empty on snapshots taken before "
                           "the column existed."),
    ]
    rate_tests = [_quarantine_rate_test(e) for e in entities if e["quarantine"]]
    doc = {"version": 2, "models": [
        {"name": "mart_data_quality",
         "description": "One snapshot per run of every entity's quality counts, grain (run, entity, rule). Counts add "
                        "up across entities and rules within a run; compare runs, do not sum them.",
         "columns": [{"name": c, "description": d} for c, d in columns]},
        {"name": "quality_quarantine_rate",
         "description": "Quarantined / evaluated rows per run and entity, computed from the stored counts.",
         **({"data_tests": rate_tests} if rate_tests else {})},
    ]}
    return YAML_HEADER + yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=120)


def _quarantine_rate_test(entity: dict) -> dict:
    """`<entity>_quarantine_rate`: the share of the entity's rows held in quarantine, in dbt's own
    output. Attached to `quality_quarantine_rate` (built last, nothing of the package reads it), so
    an ERROR skips nothing the build publishes. `failures` is the rate in basis points (0 within
    warn_above); warn_if / error_if are the spec's thresholds as the compiler computed them."""
    name, q = entity["entity"], entity["quarantine"]
    warn, error = q.get("warn_above_bp", 0), q.get("error_above_bp")
    config = {"severity": "warn" if error is None else "error", "warn_if": f">{int(warn)}"}
    if error is not None:
        config["error_if"] = f">{int(error)}"
    limits = f"warn above {_pct(warn)}" + (f", error above {_pct(error)}" if error is not None else ", never an error")
    test = _test("bloomery.bloomery_quarantine_rate", f"{name}_quarantine_rate",
                 f"Quarantined share of `{name}`'s rows ({limits}); failures = the rate in basis points "
                 "(hundredths of a percent, rounded up), 0 within warn_above.", config["severity"],
                 relations={"kept": _ref(name), "reject": _ref(f"{name}__reject")},
                 entity=name, warn_above_bp=int(warn), error_above_bp=None if error is None else int(error),
                 scd=entity["scd"], unknown_member=entity.get("unknown_member"))
    body = next(iter(test.values()))
    body["config"] = config   # one row of counts: nothing to store, unlike a blocking audit's rows
    # a node of the entity: `dbt build -s tag:bloomery_<entity>` runs it, with the user's tags
    own = (entity.get("docs") or {}).get("tags") or []
    return _tagged([test], _tags(name) + [t for t in own if t not in _tags(name)])[0]


def _bronze_columns_sql(entities: list[dict]) -> str:
    """`quality_bronze_columns`: each build's snapshot of the bronze relations' columns
    (macros/checks/quality_bronze_columns.sql), history like the mart."""
    sources = sorted({m["source"] for e in entities for m in e["mappings"]})
    items = ["{" + f'"source": {literal(s)}, "relation": source(\'bronze\', {literal(s)})' + "}" for s in sources]
    return (SQL_HEADER + _config(materialized="incremental", incremental_strategy="append", full_refresh=False,
                                 tags=_tags(*(e["entity"] for e in entities)))
            + "{{ bloomery.quality_bronze_columns([\n    " + ",\n    ".join(items) + "\n]) }}\n")


def _bronze_columns_yaml(entities: list[dict]) -> str:
    """Per entity, `<entity>_bronze_schema`: the columns its bronze relations gained, lost or
    changed type since the build before."""
    tests = []
    for e in entities:
        name = e["entity"]
        own = (e.get("docs") or {}).get("tags") or []
        tags = _tags(name) + [t for t in own if t not in _tags(name)]
        sources = sorted({m["source"] for m in e["mappings"]})
        test = _test("bloomery.bloomery_bronze_schema", f"{name}_bronze_schema",
                     f"Columns gained, lost or retyped since the build before in the bronze of `{name}` "
                     f"({', '.join(sources)}).", e["schema_changes"], sources=sources)
        next(iter(test.values()))["config"] = {"severity": e["schema_changes"]}   # a few rows: nothing to store
        tests.append(_tagged([test], tags)[0])
    doc = {"version": 2, "models": [{
        "name": "quality_bronze_columns",
        "description": "One snapshot per build of the columns (name, engine type) of every bronze relation the "
                       "entities read; the `<entity>_bronze_schema` tests compare the two latest.",
        "data_tests": tests}]}
    return YAML_HEADER + yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=120)


def _drift_sql(entities: list[dict], reconcile) -> str:
    """`quality_drift`: per run, entity and measure, the value and its trailing baseline
    (macros/mart/quality_drift.sql). Every setting is a number the compiler computed."""
    items = ["{" + ", ".join([
        f'"entity": {literal(e["entity"])}',
        # an incremental build judges its batch: its counts are the increase of the mart's
        '"incremental": ' + literal(bool(e["metadata"]) and e.get("materialization", "full") != "full"),
        *(f'"{k}": {literal(int(e["drift"][k]))}' for k in ("window", "min_history", "sensitivity_x100",
                                                             "min_change_bp"))]) + "}" for e in entities]
    return (SQL_HEADER + _config(materialized="view", tags=_mart_tags(entities, reconcile))
            + "{{ bloomery.quality_drift(ref('mart_data_quality'), [\n    " + ",\n    ".join(items) + "\n]) }}\n")


def _drift_yaml(entities: list[dict]) -> str:
    """The drift tests: per entity, its quarantine rate (with quarantine:), its volume and each of
    its rules, judged on the latest run of `quality_drift`."""
    tests = []
    for e in entities:
        name, d = e["entity"], e["drift"]
        own = (e.get("docs") or {}).get("tags") or []
        tags = _tags(name) + [t for t in own if t not in _tags(name)]
        knobs = (f"baseline: up to {d['window']} earlier runs, at least {d['min_history']}; out of band beyond "
                 f"{d['sensitivity_x100'] / 100:g} robust deviations and {_pct(d['min_change_bp'])} of the median")
        wanted = ([("quarantine_rate", None, f"{name}_drift_quarantine_rate",
                    f"Drift of `{name}`'s quarantine rate against its earlier runs ({knobs}).")] if e["quarantine"] else [])
        wanted.append(("volume", None, f"{name}_drift_volume",
                       f"Drift of the number of bronze rows a run of `{name}` judged ({knobs})."))
        wanted += [("rule", r["name"], f"{name}_{r['name']}_drift",
                    f"Drift of rule `{r['name']}`'s failure count on `{name}` ({knobs}).") for r in e["rules"]]
        for metric, rule, test_name, what in wanted:
            test = _test("bloomery.bloomery_drift", test_name, what, d["severity"], entity=name, metric=metric,
                         rule=rule if rule is not None else "(entity)")
            next(iter(test.values()))["config"] = {"severity": d["severity"]}   # one row at most: nothing to store
            tests.append(_tagged([test], tags)[0])
    doc = {"version": 2, "models": [{
        "name": "quality_drift",
        "description": "Per run, entity and measure (quarantine rate, volume, each rule's failures): the value, the "
                       "median and median absolute deviation of the trailing runs, and whether it is out of band.",
        "columns": [{"name": c, "description": d} for c, d in _DRIFT_COLUMNS],
        "data_tests": tests}]}
    return YAML_HEADER + yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=120)


_DRIFT_COLUMNS = [
    ("entity", "Entity judged."),
    ("metric", "`quarantine_rate`, `volume` or `rule`."),
    ("rule", "The rule's name for `rule`, else `(entity)`."),
    ("run_id", "dbt invocation_id of the run."), ("run_date", "Start date of the run."),
    ("run_started_at", "Start of the run, UTC (empty for snapshots taken before the mart stored it)."),
    ("run_number", "Position of the run in the entity's history, oldest first."),
    ("is_latest", "True on the entity's latest run."),
    ("metric_value", "The run's value: the quarantine rate (0 to 1); bronze rows judged (volume); rows failing the "
                     "rule. For an incremental entity, volume and rule failures are the run's increase."),
    ("baseline_runs", "Earlier runs in the baseline (at most the window)."),
    ("baseline_median", "Median of those runs' values."),
    ("baseline_mad", "Median absolute deviation of those runs' values from their median."),
    ("band", "How far from the median a value may be: the largest of sensitivity x 1.4826 x MAD, min_change x "
             "|median|, and 1 point of rate (0.01) or 10 rows."),
    ("judged", "True when the baseline holds at least min_history runs."),
    ("out_of_band", "True when judged and value > median + band (volume: or value < median - band)."),
]


def _pct(bp: int) -> str:
    whole, part = divmod(int(bp), 100)
    return f"{whole}%" if not part else f"{whole}.{part:02d}".rstrip("0") + "%"


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


def _entity_yaml(entity: dict) -> str:
    name = entity["entity"]
    rules = entity["rules"]
    rule_list = ", ".join(f"{r['name']} ({r['disposition']})" for r in rules) or "none"
    docs = entity.get("docs") or {"description": None, "meta": {}, "tags": [], "tests": [], "columns": {}}
    columns = []
    for c in entity["columns"]:
        typed = f"{c['type']['name']}{' (key)' if c['key'] else ''}"
        own = docs["columns"].get(c["name"]) or {}
        column = {"name": c["name"], "description": _prose(f"{own['description']} [{typed}]" if own.get("description")
                                                           else typed)}
        config = _user_config(own)
        if config:
            column["config"] = config
        columns.append(column)
    quality_columns = [
        {"name": "_quality_flags", "description": "Rules this row fired (flag and fail), sorted; empty when clean."},
        {"name": "_quality_ok", "description": "True when `_quality_flags` is empty."},
    ]
    metadata = [{"name": m, "description": "Ingestion metadata, as stored in bronze."}
                for m in ("_load_id", "_ingested_at", "_source_row_id")] if entity["metadata"] else []
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
    tags = _tags(name) + [t for t in docs["tags"] if t not in _tags(name)]
    for tests in (staged_tests, entity_tests, ledger_tests, *(c.get("data_tests", []) for c in columns)):
        _tagged(tests, tags)
    entity_text = f"{entity['grain']}. Rows kept by the quality split."
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
    if entity["scd"] == "type2":
        kept_model = models.pop()
        models.append({"name": f"{name}__kept", "description": f"This run's kept rows of `{name}`, versioned by the "
                                                               f"snapshot `{name}`."})
        snapshots.append({
            "name": name,
            "description": kept_model["description"] + " History kept by dbt (type 2): dbt_valid_from / dbt_valid_to.",
            "relation": f"ref('{name}__kept')",
            "config": {"unique_key": _quoted_name(entity["key"][0]), "strategy": "check",
                       "check_cols": [_quoted_name(c["name"]) for c in entity["columns"]] + ["_quality_flags"],
                       "tags": tags, **({"meta": _data(docs["meta"])} if docs["meta"] else {}),
                       **({"grants": _grants(entity)} if entity.get("grants") else {})},
            **({"data_tests": kept_model["data_tests"]} if kept_model.get("data_tests") else {}),
            "columns": kept_model["columns"],
        })
    if entity["quarantine"]:
        models.append({
            "name": f"{name}__reject",
            "description": f"Rows of `{name}` diverted by a quarantine rule, with their bronze payload for replay. "
                           f"Retention {entity['quarantine']['retention']}.",
            "columns": [{"name": c, "description": d} for c, d in _REJECT_COLUMNS],
        })
    if entity["metadata"]:
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
