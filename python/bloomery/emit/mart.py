"""The project-level quality models, history across runs: `mart_data_quality` (each run's counts
per entity, mapping and rule), `quality_quarantine_rate`, `quality_drift` (each measure against its
trailing baseline) and `quality_bronze_columns` (the bronze relations' columns per build).

Separate because they read every judged entity at once and carry the tests on rates and drift
that an operator watches, not the audits that stop an entity's build.
"""
from __future__ import annotations

import yaml

from ..resolve.ir import Entity
from ..resolve.values import percent
from ..vocabulary import MART, THRESHOLD_TAG
from .audits import _tagged, _test
from .jinja_literal import literal
from .nodes import SQL_HEADER, YAML_HEADER, _config, _entity_tags, _merged, _ref, _tags


def _mart_tags(entities: list[Entity], reconcile) -> list[str]:
    """The mart counts every judged entity (and reconcile check): each entity's selector takes it."""
    return _tags(*(e.name for e in entities), *(c[s]["entity"] for c in reconcile for s in ("left", "right")))


def _quality_sql(entity: Entity, reconcile) -> str:
    """`<entity>__quality`: the entity's counts as they stand (a view), whose post-hook appends
    them to `mart_data_quality` with the run's identity (macros/mart/mart_data_quality.sql). It
    reads only its own entity (and the reconcile checks whose left side it is), so a failure of
    another entity skips neither this snapshot nor the tests on it."""
    name = entity.name
    items = []
    if entity.rules:
        reject = "ref(" + literal(f"{name}__reject") + ")" if entity.quarantine else "none"
        ledger = "ref(" + literal(f"{name}__ledger") + ")" if entity.metadata else "none"
        # a merged entity is counted per mapping (its rows carry `_source`), so the mapping column
        # says which relation each count is about and the rows still add up to the entity
        for m in entity.mappings:
            rules = [r for r in entity.rules if not r.mappings or m.name in r.mappings]
            items.append("{" + ", ".join([
                f'"entity": {literal(name)}', f'"mapping": {literal(m.name)}',
                f'"scd": {literal(entity.scd)}', f'"unknown_member": {literal(entity.unknown_member)}',
                f'"rules": {literal([[r.name, r.disposition.spec] for r in rules])}',
                f'"kept": ref({literal(name)})', f'"reject": {reject}', f'"ledger": {ledger}']
                + ([f'"source": {literal(m.source)}'] if _merged(entity) else [])) + "}")
    checks = ["{" + ", ".join([f'"name": {literal(c["name"])}', f'"entity": {literal(c["entity"])}',
                               f'"mapping": {literal(c["mapping"])}', f'"on_fail": {literal(c["on_fail"])}',
                               f'"model": ref({literal(c["name"] + "__reconcile")})']) + "}"
              for c in reconcile if c["entity"] == name]
    # the post-hook writes into the mart, which no ref of this model's SQL names: the comment is
    # dbt's way to make the mart a parent, so it exists before the first snapshot
    return (SQL_HEADER + "-- depends_on: " + _ref(MART) + "\n"
            + _config(materialized="view", post_hook=["{{ bloomery.mart_record(ref(" + literal(MART) + ")) }}"],
                      tags=_entity_tags(entity))
            + "{{ bloomery.quality_counts([\n    " + ",\n    ".join(items) + "\n], [\n    "
            + ",\n    ".join(checks) + "\n]) }}\n")


def _mart_sql(entities: list[Entity], reconcile: list[dict] = ()) -> str:
    """`mart_data_quality`: the history. It reads no entity (each `<entity>__quality` appends to
    it), so no entity's failure skips it."""
    # full_refresh=False: the mart is the history of runs, which a `--full-refresh` of the
    # entities must not erase (as the reject table's account must not be)
    # the pre-hook adds `run_started_at` to a mart built before it was a column (the one
    # deliberate schema change: everything else still fails on_schema_change)
    return (SQL_HEADER + _config(materialized="incremental", incremental_strategy="append",
                                 on_schema_change="fail", full_refresh=False,
                                 pre_hook=["{{ bloomery.mart_add_run_started_at() }}"],
                                 tags=_mart_tags(entities, reconcile))
            + "{{ bloomery.mart_data_quality() }}\n")


def _quarantine_rate_sql(entities: list[Entity], reconcile) -> str:
    """`quality_quarantine_rate`: the mart's quarantined / evaluated rows per run and entity."""
    return (SQL_HEADER + _config(materialized="view", tags=_mart_tags(entities, reconcile))
            + "{{ bloomery.quality_quarantine_rate(ref('mart_data_quality')) }}\n")


def _mart_yaml(entities: list[Entity], quality: list[str], tests: dict[str, list[dict]]) -> str:
    """The mart, the rate view and each `<entity>__quality` with the entity's quality tests
    (quarantine rate, drift): on the entity's own view, so they run whatever another entity does."""
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
    rate_tests = {e.name: _quarantine_rate_test(e) for e in entities if e.quarantine}
    models = [
        {"name": MART,
         "description": "One snapshot per run of every entity's quality counts, grain (run, entity, rule). Counts add "
                        "up across entities and rules within a run; compare runs, do not sum them. Each "
                        "`<entity>__quality` appends its entity's rows when it builds.",
         "columns": [{"name": c, "description": d} for c, d in columns]},
        {"name": "quality_quarantine_rate",
         "description": "Quarantined / evaluated rows per run and entity, computed from the stored counts."},
    ]
    for name in quality:
        own = ([rate_tests[name]] if name in rate_tests else []) + tests.get(f"{name}__quality", [])
        models.append({
            "name": f"{name}__quality",
            "description": f"`{name}`'s quality counts as they stand (the mart's columns without the run's); each build "
                           "appends them to `mart_data_quality`.",
            "columns": [{"name": c, "description": d} for c, d in columns if not c.startswith("run_")],
            **({"data_tests": own} if own else {})})
    doc = {"version": 2, "models": models}
    return YAML_HEADER + yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=120)


def _quarantine_rate_test(entity: Entity) -> dict:
    """`<entity>_quarantine_rate`: the share of the entity's rows held in quarantine, in dbt's own
    output. Attached to `<entity>__quality` (nothing of the package reads it but the mart's
    snapshot, taken in its post-hook before the test runs), so an ERROR skips nothing. Its results are the rows held in quarantine, each
    with a 0/1 column per threshold named by it in percent (macros/audits/quarantine_rate.sql);
    warn_if / error_if read those columns, so dbt's line names the threshold crossed."""
    name, q = entity.name, entity.quarantine
    warn, error = int(q.warn_above_bp), None if q.error_above_bp is None else int(q.error_above_bp)
    above = {_threshold_column(bp): bp for bp in (warn, error) if bp is not None}
    config = {"severity": "warn" if error is None else "error", "warn_if": _crossed(warn)}
    if error is not None:
        config["error_if"] = _crossed(error)
    limits = f"warn above {percent(warn)}" + (f", error above {percent(error)}" if error is not None else ", never an error")
    test = _test("bloomery.bloomery_quarantine_rate", f"{name}_quarantine_rate",
                 f"Quarantined share of `{name}`'s rows ({limits}); its results are the rows held in quarantine, "
                 "each with the rate (`quarantined_percent`) and a 0/1 column per threshold.", config["severity"],
                 relations={"kept": _ref(name), "reject": _ref(f"{name}__reject")},
                 entity=name, above=above, scd=entity.scd, unknown_member=entity.unknown_member)
    body = next(iter(test.values()))
    body["config"] = config   # the reject table's rows: nothing to store, unlike a blocking audit's rows
    # a node of the entity: `dbt build -s tag:bloomery_<entity>` runs it, with the user's tags
    return _tagged([test], _entity_tags(entity) + [THRESHOLD_TAG])[0]


def _threshold_column(bp: int) -> str:
    """The quarantine-rate test's column for a threshold: `quarantined_above_12_5pct` for 1250 bp."""
    return "quarantined_above_" + percent(bp).rstrip("%").replace(".", "_") + "pct"


def _crossed(bp: int) -> str:
    """warn_if / error_if of the quarantine-rate test: dbt appends it to `count(*)` (its fail_calc),
    and prints it: `Got 3 results, configured to warn if >0 and max(quarantined_above_10pct) = 1`."""
    return f">0 and max({_threshold_column(bp)}) = 1"


def _bronze_columns_sql(entities: list[Entity]) -> str:
    """`quality_bronze_columns`: each build's snapshot of the bronze relations' columns
    (macros/checks/quality_bronze_columns.sql), history like the mart."""
    sources = sorted({m.source for e in entities for m in e.mappings})
    items = ["{" + f'"source": {literal(s)}, "relation": source(\'bronze\', {literal(s)})' + "}" for s in sources]
    return (SQL_HEADER + _config(materialized="incremental", incremental_strategy="append", full_refresh=False,
                                 tags=_tags(*(e.name for e in entities)))
            + "{{ bloomery.quality_bronze_columns([\n    " + ",\n    ".join(items) + "\n]) }}\n")


def _drift_sql(entities: list[Entity], reconcile) -> str:
    """`quality_drift`: per run, entity and measure, the value and its trailing baseline
    (macros/mart/quality_drift.sql). Every setting is a number the compiler computed."""
    items = ["{" + ", ".join([
        f'"entity": {literal(e.name)}',
        # an incremental build judges its batch: its counts are the increase of the mart's
        '"incremental": ' + literal(e.metadata and e.materialization != "full"),
        *(f'"{k}": {literal(int(e.drift[k]))}' for k in ("window", "min_history", "sensitivity_x100",
                                                             "min_change_bp"))]) + "}" for e in entities]
    return (SQL_HEADER + _config(materialized="view", tags=_mart_tags(entities, reconcile))
            + "{{ bloomery.quality_drift(ref('mart_data_quality'), [\n    " + ",\n    ".join(items) + "\n]) }}\n")


def _drift_tests(entities: list[Entity], drifting: list[Entity], watched: list[Entity],
                 quality: list[str]) -> dict[str, list[dict]]:
    """`<entity>_drift` of each entity that has one: its measures out of band (`quality_drift`) and
    its bronze relations' column changes (`quality_bronze_columns`) in one node, whatever the number
    of rules and columns, a row per thing that moved naming it (macros/audits/drift.sql). By the
    model it is declared on: the entity's `<entity>__quality` when it has one (so it runs after
    the run's snapshot, and whatever another entity does), else `quality_bronze_columns`; the
    relations it reads are arguments."""
    tests: dict[str, list[dict]] = {"quality_bronze_columns": []}
    drifting_names, watched_names = {e.name for e in drifting}, {e.name for e in watched}
    for e in entities:
        drifts, watches = e.name in drifting_names, e.name in watched_names
        if not (drifts or watches):
            continue
        name, d = e.name, e.drift
        # the entity itself: the test is one of the entity's in dbt's graph (cautious selection)
        parts, relations, blocking = [], {"published": _ref(name)}, []
        if drifts:
            knobs = (f"baseline: up to {d['window']} earlier runs, at least {d['min_history']}; out of band beyond "
                     f"{d['sensitivity_x100'] / 100:g} robust deviations and {percent(d['min_change_bp'])} of the median")
            measures = (["its quarantine rate"] if e.quarantine else []) + ["the number of bronze rows a run judged"] + (
                [f"the failures of each rule ({', '.join(f'`{r.name}`' for r in e.rules)})"] if e.rules else [])
            parts.append(f"{', '.join(measures)} against its earlier runs ({knobs}; {d['severity']})")
            relations["measures"] = _ref("quality_drift")
            blocking += ["measures"] if d["severity"] == "error" else []
        sources = sorted({m.source for m in e.mappings})
        if watches:
            parts.append(f"the columns its bronze ({', '.join(sources)}) gained, lost or retyped since the build "
                         f"before ({e.schema_changes})")
            relations["columns"] = _ref("quality_bronze_columns")
            blocking += ["columns"] if e.schema_changes == "error" else []
        what = f"Drift of `{name}`: {'; '.join(parts)}. One row per measure out of band or column changed, naming it."
        severity = "error" if blocking else "warn"
        test = _test("bloomery.bloomery_drift", f"{name}_drift", what, severity, relations=relations, entity=name,
                     **({"sources": sources} if watches else {}), **({"blocking": blocking} if blocking else {}))
        # with both parts present and only one of them an error, the other's rows must stay a
        # WARN: dbt evaluates `<fail_calc> <error_if>` over the test's rows
        if blocking and len(blocking) < len(parts):
            next(iter(test.values()))["config"]["error_if"] = "!= 0 and max(blocking) = 1"
        on = f"{name}__quality" if name in quality else "quality_bronze_columns"
        tests.setdefault(on, []).append(_tagged([test], _entity_tags(e) + [THRESHOLD_TAG])[0])
    return tests


def _drift_yaml() -> str:
    doc = {"version": 2, "models": [{
        "name": "quality_drift",
        "description": "Per run, entity and measure (quarantine rate, volume, each rule's failures): the value, the "
                       "median and median absolute deviation of the trailing runs, and whether it is out of band.",
        "columns": [{"name": c, "description": d} for c, d in _DRIFT_COLUMNS]}]}
    return YAML_HEADER + yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=120)


def _bronze_columns_yaml(tests: list[dict]) -> str:
    model = {"name": "quality_bronze_columns",
             "description": "One snapshot per build of the columns (name, engine type) of every bronze relation the "
                            "entities read; each entity's `<entity>_drift` test reports what changed between the two "
                            "latest."}
    if tests:
        model["data_tests"] = tests
    return YAML_HEADER + yaml.safe_dump({"version": 2, "models": [model]}, sort_keys=False, allow_unicode=True, width=120)


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
