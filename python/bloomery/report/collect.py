"""The report's steps: which queries run, in what order, with a progress line each."""
from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ..vocabulary import ENTITY_ROW, MART
from .dbt_source import DbtQueryError, DbtSession
from .model import RejectSample, ReportInput, as_int, as_text, order_runs

NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")       # entity names (the spec schema is stricter still)
RUN_ID = re.compile(r"^[A-Za-z0-9_.:-]+$")           # dbt invocation ids


@dataclass
class Options:
    sample: int = 5
    max_runs: int = 60
    top_rules: int = 20
    title: str = "Data quality report"
    redact: dict[str, list[str]] | None = None        # from --specs; else what the manifest carries


@dataclass
class EntityFacts:
    name: str
    reject: bool = False
    snapshot: bool = False
    redact: list[str] = field(default_factory=list)


def _lit(value: str, pattern: re.Pattern) -> str:
    if not pattern.match(value):
        raise DbtQueryError(f"refusing to quote {value!r} into SQL", [])
    return f"'{value}'"


def _entity_facts(session: DbtSession, names: set[str], options: Options) -> dict[str, EntityFacts]:
    facts: dict[str, EntityFacts] = {}
    for node in session.manifest.nodes.values():
        ir = (getattr(node.config, "meta", None) or {}).get("bloomery")
        if isinstance(ir, dict) and node.name == f"{ir.get('entity')}__reject":
            names.add(ir["entity"])
    for name in sorted(n for n in names if NAME.match(n)):
        reject = session.node(f"{name}__reject")
        entity = session.node(name)
        ir = ((getattr(reject.config, "meta", None) or {}).get("bloomery") or {}) if reject is not None else {}
        redact = (options.redact or {}).get(name) if options.redact is not None else \
            ((ir.get("quarantine") or {}).get("redact") or [])
        facts[name] = EntityFacts(name, reject=reject is not None,
                                  snapshot=entity is not None and "snapshot" in str(entity.resource_type).lower(),
                                  redact=sorted(redact or []))
    return facts


def collect(session: DbtSession, options: Options, progress: Callable[[str], None]) -> ReportInput:
    started = time.monotonic()
    progress(f"parsing the dbt project in {session.project_dir}…")
    manifest = session.parse()
    if session.node(MART) is None:
        raise DbtQueryError(f"the dbt project has no `{MART}` model",
                            ["run `bloomery compile` into this project's models (the mart exists once an entity has a "
                             "rule), then `dbt build`"])

    progress(f"reading {MART}…")
    # every column: a mart that stores each run's start (`run_started_at`) orders and labels runs by it
    accounting = session.rows(
        f"select * from {{{{ ref('{MART}') }}}} where rule = '{ENTITY_ROW}'",
        f"could not read {MART} (has `dbt build` run since `bloomery compile`?)")
    runs = order_runs(accounting)
    entities = {as_text(r["entity"]) for r in accounting}
    rule_rows: list[dict] = []
    if runs:
        wanted = runs[-2:]
        progress(f"{len(runs)} run{'s' if len(runs) != 1 else ''} of {len(entities)} entit{'ies' if len(entities) != 1 else 'y'}; "
                 f"reading the rules of the latest run ({runs[-1].when})"
                 + (" and the one before…" if len(wanted) > 1 else "…"))
        ids = ", ".join(_lit(r.run_id, RUN_ID) for r in wanted)
        rule_rows = session.rows(
            "select entity, mapping, rule, disposition, run_id, run_date, rows_evaluated, rows_failed, rows_quarantined, "
            f"rows_deduped from {{{{ ref('{MART}') }}}} where rule <> '{ENTITY_ROW}' and run_id in ({ids})",
            f"could not read the rules in {MART}")

    drift_rows: list[dict] = []
    if runs and session.node("quality_drift") is not None:
        # the baseline band and the flagged runs: the view's verdicts, not recomputed here
        progress("reading quality_drift…")
        drift_rows = session.rows(
            "select entity, run_id, metric, rule, metric_value, baseline_median, band, judged, out_of_band "
            "from {{ ref('quality_drift') }}", "could not read quality_drift")

    columns: list[dict] = []
    if runs and session.node("quality_bronze_columns") is not None:
        progress("reading quality_bronze_columns…")
        columns = bronze_column_changes(session)

    facts = _entity_facts(session, set(entities), options)
    latest = runs[-1].run_id if runs else None
    quarantined_now = {as_text(r["entity"]): as_int(r["rows_quarantined"])
                       for r in accounting if as_text(r["run_id"]) == latest}

    flagged: dict[str, int | None] = {}
    counted = [f for f in facts.values() if f.name in entities and session.node(f.name) is not None]
    if counted:
        progress(f"counting flagged rows in {len(counted)} entit{'ies' if len(counted) != 1 else 'y'}…")
        parts = []
        for f in counted:
            current = " and dbt_valid_to is null" if f.snapshot else ""
            parts.append(f"select {_lit(f.name, NAME)} as entity, count(*) as flagged from {{{{ ref('{f.name}') }}}} "
                         f"where not {{{{ adapter.quote('_quality_ok') }}}}{current}")
        try:
            for row in session.rows("\nunion all\n".join(parts), "could not count flagged rows"):
                flagged[as_text(row["entity"])] = as_int(row["flagged"])
        except DbtQueryError as exc:
            progress(f"warning: {exc} — the report shows flagged as unknown")

    samples = []
    for f in facts.values():
        if not f.reject:
            continue
        progress(f"sampling unresolved rejects of {f.name}"
                 + (f" ({quarantined_now[f.name]:,} in the latest run)…" if f.name in quarantined_now else "…"))
        q = "{{ adapter.quote('%s') }}"
        sql = (f"select * from (select {{{{ bloomery.flags_text(adapter.quote('failed_rules')) }}}} as failed_rules, "
               f"{q % 'key_values'} as key_values, {q % 'raw'} as raw, {q % '_source_row_id'} as source_row_id, "
               f"{q % '_load_id'} as load_id, "
               f"{q % 'first_seen'} as first_seen, {q % 'last_seen'} as last_seen, count(*) over () as unresolved, "
               f"row_number() over (order by {q % 'last_seen'} desc, {q % 'reject_id'}) as sample_rank "
               f"from {{{{ ref('{f.name}__reject') }}}} where {q % 'resolved_at'} is null) sampled "
               f"where sample_rank <= {int(options.sample)} order by sample_rank")
        try:
            rows = session.rows(sql, f"could not read {f.name}__reject")
        except DbtQueryError as exc:
            progress(f"warning: {exc}")
            samples.append(RejectSample(f.name, 0, [], f.redact, error="; ".join(exc.messages) or exc.what))
            continue
        for row in rows:
            row["_source_row_id"], row["_load_id"] = row.pop("source_row_id"), row.pop("load_id")
        samples.append(RejectSample(f.name, as_int(rows[0]["unresolved"]) if rows else 0, rows, f.redact))

    meta = manifest.metadata
    subtitle = " · ".join(x for x in [f"dbt project {getattr(meta, 'project_name', None) or session.project_dir.name}",
                                      getattr(meta, "adapter_type", None)] if x)
    progress(f"read everything in {time.monotonic() - started:.1f}s")
    return ReportInput(mart_rows=accounting + rule_rows, flagged=flagged, rejects=samples, title=options.title,
                       subtitle=subtitle, max_runs=options.max_runs, top_rules=options.top_rules,
                       drift_rows=drift_rows, bronze_columns=columns)


COLUMN_CHANGE = ("source_name", "column_name", "change", "type_before", "type_after")


def bronze_column_changes(session: DbtSession) -> list[dict]:
    """The columns every bronze relation gained, lost or retyped between the two latest snapshots of
    `quality_bronze_columns`, by the package's own macro (the one the drift tests read) over the
    source names dbt knows: no name is spelled into SQL here. Sorted by relation and column."""
    rows = session.rows(
        "{%- set names = [] -%}{%- for s in graph.sources.values() if s.source_name == 'bronze' -%}"
        "{%- do names.append(bloomery.string_literal(s.name)) -%}{%- endfor -%}"
        f"select {', '.join(COLUMN_CHANGE)} from "
        "({{ bloomery.bronze_schema_changes(ref('quality_bronze_columns'), names) }}) as c",
        "could not read quality_bronze_columns")
    changes = [{k: (None if r[k] is None else as_text(r[k])) for k in COLUMN_CHANGE} for r in rows]
    return sorted(changes, key=lambda c: (c["source_name"], c["column_name"]))


def specs_redaction(specs: Path) -> dict[str, list[str]]:
    """entity -> redacted bronze columns, from a spec tree (raises BloomeryError when it is refused)."""
    from ..resolve import check_project
    project = check_project(Path(specs))
    return {name: list(e.quarantine.redact) if e.quarantine else [] for name, e in project.entities.items()}
