"""What the report shows, computed from plain rows (no dbt, no HTML): pure and unit-testable.

Input rows are the columns of `mart_data_quality` and of the reject tables as dicts; the values
may come straight from an adapter (lists, dicts, Decimals, datetimes) or as text (JSON, comma
lists), so every reader here accepts both.
"""
from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field
from decimal import Decimal

from ..vocabulary import ENTITY_ROW


@dataclass
class RejectSample:
    """A few unresolved rejects of one entity, newest first."""
    entity: str
    unresolved: int                     # unresolved rejects in the table when it was read
    rows: list[dict]                    # failed_rules, key_values, raw, _source_row_id, first_seen, last_seen
    redact: list[str] = field(default_factory=list)   # bronze columns kept out of `raw`
    error: str | None = None            # the table could not be read: why


@dataclass
class ReportInput:
    mart_rows: list[dict]               # rows of mart_data_quality; runs of one date keep this order
    flagged: dict[str, int | None] = field(default_factory=dict)   # entity -> kept rows carrying a flag
    rejects: list[RejectSample] = field(default_factory=list)
    title: str = "Data quality report"
    subtitle: str = ""                  # e.g. "dbt project shop · target duckdb"
    generated_at: str = ""
    max_runs: int = 60                  # runs drawn in the chart (the newest)
    top_rules: int = 20
    drift_rows: list[dict] = field(default_factory=list)   # rows of quality_drift (none: the project has no view)
    # the columns the bronze relations gained, lost or retyped since the build before (collect.bronze_column_changes)
    bronze_columns: list[dict] = field(default_factory=list)


@dataclass
class Run:
    run_id: str
    run_date: str
    number: int                         # 1 = oldest run in the mart
    run_time: str = ""                  # "YYYY-MM-DD HH:MM:SS" UTC, when the mart has `run_started_at`

    @property
    def when(self) -> str:
        """The run's start to the minute, or its date when the mart stores no time."""
        return f"{self.run_time[:16]} UTC" if self.run_time else self.run_date


@dataclass
class EntityCounts:
    entity: str
    evaluated: int
    kept: int
    flagged: int | None
    quarantined: int
    deduped: int

    @property
    def rate(self) -> float | None:
        return self.quarantined / self.evaluated if self.evaluated else None


@dataclass
class RuleRow:
    entity: str
    rule: str
    disposition: str
    rows: int
    evaluated: int                      # the entity's population in the same run
    previous: int | None                # rows in the run before, None when the rule was not there


@dataclass
class ReportModel:
    runs: list[Run]                     # oldest first, all of them
    chart_runs: list[Run]               # the newest `max_runs`
    series: dict[str, list[float | None]]   # entity -> quarantine rate per chart run (None: not judged then)
    counts: list[EntityCounts]          # latest run
    rules: list[RuleRow]                # latest run, rows > 0, most rows first, at most `top_rules`
    rules_firing: int                   # rules with rows > 0 in the latest run
    rules_total: int                    # rules judged in the latest run
    dispositions: list[str]             # every disposition in the latest run's rule rows
    disposition_of: dict[tuple[str, str], str] = field(default_factory=dict)   # (entity, rule), latest run
    went_to_zero: list[RuleRow] = field(default_factory=list)   # fired in the run before, on no row in the latest
    # entity -> per chart run, the baseline band of its quarantine rate (median, median + band) as
    # quality_drift judged that run, None where it was not judged; only for an entity whose plotted
    # rate is the rate the drift judges (a `full` entity: an incremental one's drift judges each
    # run's own batch, its line is the rate of everything held)
    bands: dict[str, list[tuple[float, float] | None]] = field(default_factory=dict)
    # entity -> {chart run index: what was out of band in that run} (any measure: rate, volume, rule)
    flagged_runs: dict[str, dict[int, list[str]]] = field(default_factory=dict)

    @property
    def latest(self) -> Run | None:
        return self.runs[-1] if self.runs else None


def as_int(value) -> int:
    if value is None or value == "":
        return 0
    if isinstance(value, (int, Decimal, float)):
        return int(value)
    return int(Decimal(str(value)))


def as_bool(value) -> bool:
    """A boolean as an engine returns it: a bool, or text such as 't' / 'true' / '1'."""
    return str(value).strip().lower() in ("true", "t", "1")


def as_text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, dt.datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S")
    if isinstance(value, dt.date):
        return value.isoformat()
    return str(value)


def as_list(value) -> list[str]:
    """A flag column: a list, a JSON array, a '{a,b}' array literal or comma-joined text."""
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value]
    text = str(value).strip()
    if text.startswith("["):
        try:
            parsed = json.loads(text)
            if isinstance(parsed, list):
                return [str(v) for v in parsed]
        except ValueError:
            pass
    if text.startswith("{") and text.endswith("}"):
        text = text[1:-1]
    return [part.strip().strip('"') for part in text.split(",") if part.strip()]


def as_json(value):
    """A JSON column: the parsed object when it parses, else the text as it came."""
    if value is None or isinstance(value, (dict, list)):
        return value
    try:
        return json.loads(str(value))
    except ValueError:
        return str(value)


def run_time(value) -> str:
    """A run's start as "YYYY-MM-DD HH:MM:SS" in UTC ("" when unknown), from a datetime or text."""
    if value is None or value == "":
        return ""
    if isinstance(value, dt.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(dt.timezone.utc)
        return value.strftime("%Y-%m-%d %H:%M:%S")
    return str(value).replace("T", " ")[:19]


def order_runs(mart_rows: list[dict]) -> list[Run]:
    """Runs oldest first: by start time where the mart stores one (`run_started_at`), else by
    run_date, runs of one date without a time in the order the rows came in."""
    first: dict[str, tuple[str, str, int]] = {}
    for i, row in enumerate(mart_rows):
        run_id = as_text(row["run_id"])
        if run_id not in first:
            first[run_id] = (as_text(row["run_date"]), run_time(row.get("run_started_at")), i)
    ordered = sorted(first.items(), key=lambda item: item[1])
    return [Run(run_id, date, n, time) for n, (run_id, (date, time, _)) in enumerate(ordered, start=1)]


def build(data: ReportInput) -> ReportModel:
    runs = order_runs(data.mart_rows)
    chart_runs = runs[-data.max_runs:] if data.max_runs > 0 else runs
    position = {r.run_id: i for i, r in enumerate(chart_runs)}
    accounting = [r for r in data.mart_rows if as_text(r["rule"]) == ENTITY_ROW]
    entities = sorted({as_text(r["entity"]) for r in accounting})

    series: dict[str, list[float | None]] = {e: [None] * len(chart_runs) for e in entities}
    for row in accounting:
        i = position.get(as_text(row["run_id"]))
        if i is None:
            continue
        evaluated = as_int(row["rows_evaluated"])
        series[as_text(row["entity"])][i] = (as_int(row["rows_quarantined"]) / evaluated) if evaluated else None

    latest = runs[-1].run_id if runs else None
    previous = runs[-2].run_id if len(runs) > 1 else None
    counts: list[EntityCounts] = []
    evaluated_of: dict[str, int] = {}
    for row in accounting:
        if as_text(row["run_id"]) != latest:
            continue
        entity = as_text(row["entity"])
        evaluated, quarantined = as_int(row["rows_evaluated"]), as_int(row["rows_quarantined"])
        evaluated_of[entity] = evaluated
        flagged = data.flagged.get(entity)
        counts.append(EntityCounts(entity, evaluated, max(evaluated - quarantined, 0),
                                   None if flagged is None else as_int(flagged), quarantined,
                                   as_int(row["rows_deduped"])))
    counts.sort(key=lambda c: c.entity)

    rule_rows = [r for r in data.mart_rows if as_text(r["rule"]) != ENTITY_ROW]
    before = {(as_text(r["entity"]), as_text(r["rule"])): as_int(r["rows_failed"])
              for r in rule_rows if previous is not None and as_text(r["run_id"]) == previous}
    now = [r for r in rule_rows if as_text(r["run_id"]) == latest]
    rules = [RuleRow(as_text(r["entity"]), as_text(r["rule"]), as_text(r["disposition"]), as_int(r["rows_failed"]),
                     evaluated_of.get(as_text(r["entity"]), 0),
                     before.get((as_text(r["entity"]), as_text(r["rule"]))) if previous else None)
             for r in now]
    firing = [r for r in rules if r.rows > 0]
    firing.sort(key=lambda r: (-r.rows, r.entity, r.rule))
    zero = [r for r in rules if r.rows == 0 and r.previous]
    zero.sort(key=lambda r: (-r.previous, r.entity, r.rule))
    bands, flagged_runs = _drift_marks(data.drift_rows, position, series)
    return ReportModel(runs=runs, chart_runs=chart_runs, series=series, counts=counts,
                       rules=firing[:max(data.top_rules, 0)], rules_firing=len(firing), rules_total=len(rules),
                       dispositions=sorted({r.disposition for r in rules}),
                       disposition_of={(r.entity, r.rule): r.disposition for r in rules}, went_to_zero=zero,
                       bands=bands, flagged_runs=flagged_runs)


def _as_float(value) -> float | None:
    return None if value is None or value == "" else float(value)


def _drift_marks(rows: list[dict], position: dict[str, int], series: dict[str, list[float | None]]):
    """The chart's band and flagged runs, read from quality_drift's rows (never recomputed here).

    An entity's band is drawn only when the view's quarantine rate of every judged run is the rate
    the line plots; otherwise (an incremental entity) the band would not be the line's, and only
    the flagged runs are marked."""
    bands: dict[str, list[tuple[float, float] | None]] = {}
    same: dict[str, bool] = {}
    flagged: dict[str, dict[int, list[str]]] = {}
    for row in rows:
        entity, i = as_text(row["entity"]), position.get(as_text(row["run_id"]))
        if i is None or entity not in series:
            continue
        metric, rule = as_text(row["metric"]), as_text(row.get("rule"))
        if as_bool(row.get("out_of_band")):
            what = "quarantine rate" if metric == "quarantine_rate" else "volume" if metric == "volume" else f"rule {rule}"
            flagged.setdefault(entity, {}).setdefault(i, []).append(what)
        if metric != "quarantine_rate" or not as_bool(row.get("judged")):
            continue
        value, median, band = (_as_float(row.get(k)) for k in ("metric_value", "baseline_median", "band"))
        plotted = series[entity][i]
        # the view's numbers may be single-precision floats (DuckDB's `float`): equal to 1e-6 is the same rate
        if value is None or median is None or band is None or plotted is None or abs(value - plotted) > 1e-6:
            same[entity] = False
            continue
        same.setdefault(entity, True)
        # a rate is at most 100 %: a band wider than that would stretch the axis past it
        bands.setdefault(entity, [None] * len(series[entity]))[i] = (median, min(1.0, median + band))
    for runs in flagged.values():
        for whats in runs.values():
            whats.sort()
    return {e: b for e, b in bands.items() if same.get(e)}, flagged
