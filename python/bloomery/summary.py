"""`bloomery summary`: the latest run per entity, for CI jobs and chat notifications.

  read()          the only I/O: the mart's accounting rows and the latest rows of `quality_drift`
                  through dbt (report/dbt_source.py), the drift tests' severities from the manifest,
                  and the project's target/run_results.json when it exists
  build()         those plain rows -> the summary (a dict, the JSON output), pure
  to_text()       the summary -> text, pure
  exit_status()   the summary and --fail-on -> 0 or FAILED (4), pure

The drift statistic is never recomputed here: `out_of_band`, the median and the band are the
`quality_drift` view's.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from .resolve.values import percent
from .terminal import inert, inert_lines
from .vocabulary import ENTITY_ROW, MART

FAILED = 4                       # --fail-on warn|error found a drift, a dbt test or a model error at that severity or worse
_RANK = {"warn": 1, "error": 2}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--project-dir", default=".", help="the dbt project (default: the current folder)")
    parser.add_argument("--profiles-dir", help="folder holding profiles.yml (default: dbt's own lookup)")
    parser.add_argument("--target", help="dbt target to read (default: the profile's)")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("--fail-on", choices=("warn", "error", "never"), default="never",
                        help=f"exit {FAILED} when a drift or a dbt test of the last invocation is at this severity "
                             "or worse (default: never)")


# -- pure ------------------------------------------------------------------------------------------
def _num(value):
    if value is None:
        return None
    try:
        f = float(value)
    except (TypeError, ValueError):
        return None
    return int(f) if f.is_integer() and not isinstance(value, float) else f


def _int(value) -> int:
    return int(float(value)) if value is not None else 0


def _text(value) -> str | None:
    return None if value is None else str(value)


def _bool(value) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("true", "t", "1", "yes")
    return bool(value)


def _run_key(row: dict):
    started = row.get("run_started_at")
    return (_text(row.get("run_date")) or "", started is not None, _text(started) or "", _text(row.get("run_id")) or "")


def _entity_of(test_name: str, entities) -> str | None:
    """The entity a test or model belongs to: the longest entity name its name starts with."""
    found = [e for e in entities if test_name.startswith(e + "_")]
    return max(found, key=len) if found else None


def _first_line(message) -> str | None:
    """What a node's error says, without dbt's own heading ("Compilation Error in model x (path)").
    Lines are dbt's, split at newlines only: a CR or another separator inside a value the engine
    quotes stays in it (the JSON output carries the value exactly; the text escapes it)."""
    lines = [line.strip() for line in str(message or "").split("\n") if line.strip()]
    lines = [line for line in lines if not re.match(r"(Compilation|Runtime|Database) Error in ", line)]
    return lines[0] if lines else None


def build(accounting: list[dict], drift: list[dict], run_results: dict | None = None,
          severities: dict[str, str] | None = None, limits: dict[str, dict] | None = None,
          columns: dict[str, list[dict]] | None = None) -> dict:
    """The summary of the latest run per entity.

    accounting   the mart's `(entity)` rows (entity, run_id, run_date, run_started_at, rows_evaluated,
                 rows_quarantined, rows_deduped), one per mapping; summed per entity and run
    drift        rows of `quality_drift` where is_latest
    run_results  the parsed target/run_results.json, or None
    severities   entity -> severity of its drift tests ('warn' or 'error'; default warn)
    limits       quarantine-rate test name -> {'warn': bp, 'error': bp or None} (`quarantine_limits`)
    columns      entity -> the columns its bronze relations gained, lost or retyped since the build
                 before (source_name, column_name, change, type_before, type_after)
    """
    severities, limits, columns = severities or {}, limits or {}, columns or {}
    runs: dict[tuple[str, str], dict] = {}
    for r in accounting:
        entity, run_id = _text(r["entity"]), _text(r["run_id"])
        agg = runs.setdefault((entity, run_id), {"entity": entity, "run_id": run_id, "run_date": r.get("run_date"),
                                                 "run_started_at": r.get("run_started_at"), "rows_evaluated": 0,
                                                 "rows_quarantined": 0, "rows_deduped": 0})
        for col in ("rows_evaluated", "rows_quarantined", "rows_deduped"):
            agg[col] += _int(r.get(col))
    latest: dict[str, dict] = {}
    for agg in runs.values():
        if agg["entity"] not in latest or _run_key(agg) > _run_key(latest[agg["entity"]]):
            latest[agg["entity"]] = agg
    entities = []
    for name in sorted(latest):
        a = latest[name]
        drifted = []
        for d in drift:
            if _text(d["entity"]) != name or not _bool(d.get("out_of_band")):
                continue
            drifted.append({"metric": _text(d["metric"]),
                            "rule": None if _text(d.get("rule")) == ENTITY_ROW else _text(d.get("rule")),
                            "value": _num(d.get("metric_value")), "median": _num(d.get("baseline_median")),
                            "band": _num(d.get("band")), "severity": severities.get(name, "warn")})
        drifted.sort(key=lambda x: (x["metric"], x["rule"] or ""))
        evaluated = a["rows_evaluated"]
        entities.append({"entity": name, "run_id": a["run_id"], "run_date": _text(a["run_date"]),
                         "run_started_at": _text(a["run_started_at"]), "rows_evaluated": evaluated,
                         "rows_quarantined": a["rows_quarantined"], "rows_deduped": a["rows_deduped"],
                         "quarantine_rate": round(a["rows_quarantined"] / evaluated, 6) if evaluated else None,
                         "drift": drifted, "bronze_columns": columns.get(name, [])})
    summarized = {e["entity"]: e for e in entities}
    tests, errors = [], []
    for r in (run_results or {}).get("results") or []:
        uid = str(r.get("unique_id", ""))
        status = str(r.get("status", ""))
        name = uid.split(".")[2] if uid.count(".") >= 2 else uid
        if uid.startswith("test.") and status in ("warn", "fail", "error"):
            entity = _entity_of(name, latest)
            test = {"name": name, "unique_id": uid, "entity": entity, "status": status,
                    "failures": r.get("failures"), "severity": "warn" if status == "warn" else "error"}
            if name in limits and entity in summarized:
                # the mart's run beside the test's rows: equal unless the test ran on newer tables
                e = summarized[entity]
                test.update(quarantine_rate=e["quarantine_rate"], rows_evaluated=e["rows_evaluated"],
                            rows_quarantined=e["rows_quarantined"], **limits[name])
            tests.append(test)
        elif not uid.startswith("test.") and status == "error":
            # a model that stopped (a bronze column a mapping reads is gone, a blocking audit's
            # parent failed): what it says is the fix, so the summary carries its first line
            errors.append({"name": name, "unique_id": uid, "entity": _entity_of(name, latest) or
                           (name if name in latest else None), "status": status,
                           "message": _first_line(r.get("message")), "severity": "error"})
    tests.sort(key=lambda t: t["unique_id"])
    errors.sort(key=lambda t: t["unique_id"])
    worst = max([_RANK[d["severity"]] for e in entities for d in e["drift"]] + [_RANK[t["severity"]] for t in tests]
                + [_RANK["error"] for _ in errors], default=0)
    return {"entities": entities, "tests": tests, "errors": errors,
            "tests_read": run_results is not None,
            "worst": {0: "ok", 1: "warn", 2: "error"}[worst]}


def exit_status(summary: dict, fail_on: str) -> int:
    if fail_on == "never" or summary["worst"] == "ok":
        return 0
    return FAILED if _RANK[summary["worst"]] >= _RANK[fail_on] else 0


def _fmt(value, rate: bool) -> str:
    if value is None:
        return "-"
    return f"{value * 100:.2f}%" if rate else f"{value:,.0f}" if float(value).is_integer() else f"{value:,.2f}"


def _test_result(t: dict) -> str:
    """What a test's results were, in rows (a dbt test's results are rows); a quarantine-rate test
    adds the rate and its thresholds in percent."""
    if t["failures"] is None:
        return ""
    rows = f"{t['failures']:,} row" + ("" if t["failures"] == 1 else "s")
    if "warn" not in t or t.get("quarantine_rate") is None:
        return f" ({rows})"
    limits = f"warn above {percent(t['warn'])}" + (f", error above {percent(t['error'])}" if t.get("error") is not None else "")
    rate = f"{t['quarantine_rate'] * 100:.2f}% of {t['rows_evaluated']:,} evaluated"
    if t["failures"] != t.get("rows_quarantined"):
        # the test ran on the tables after the mart's latest snapshot (a replay, then `dbt test`)
        return f": {rows} held in quarantine now; the mart's latest run recorded {rate} ({limits})"
    return f": {rows} held in quarantine, {rate} ({limits})"


def to_text(summary: dict) -> str:
    lines = []
    for e in summary["entities"]:
        rate = "-" if e["quarantine_rate"] is None else f"{e['quarantine_rate'] * 100:.2f}%"
        when = e["run_started_at"] or e["run_date"] or ""
        lines.append(f"{e['entity']}: run {e['run_id']} ({when}): {e['rows_evaluated']:,} evaluated, "
                     f"{e['rows_quarantined']:,} quarantined ({rate}), {e['rows_deduped']:,} deduped")
        for d in e["drift"]:
            is_rate = d["metric"] == "quarantine_rate"
            what = d["metric"] if d["rule"] is None else f"rule {d['rule']}"
            lines.append(f"  drift {d['severity'].upper()}: {what} {_fmt(d['value'], is_rate)} "
                         f"(median {_fmt(d['median'], is_rate)}, band ±{_fmt(d['band'], is_rate)})")
        for c in e.get("bronze_columns", []):
            types = {"added": f" ({c['type_after']})", "lost": f" (was {c['type_before']})",
                     "retyped": f" ({c['type_before']} -> {c['type_after']})"}.get(c["change"], "")
            lines.append(f"  bronze column {c['change']}: {c['source_name']}.{c['column_name']}{types}")
    if not summary["entities"]:
        lines.append("no run in mart_data_quality yet")
    if summary["tests_read"] and summary.get("errors"):
        lines.append("dbt nodes of the last invocation that stopped with an error:")
        for t in summary["errors"]:
            lines.append(f"  ERROR {t['name']}" + (f": {t['message']}" if t["message"] else ""))
    if summary["tests_read"]:
        if summary["tests"]:
            lines.append("dbt tests of the last invocation not passing:")
            for t in summary["tests"]:
                lines.append(f"  {t['status'].upper()} {t['name']}{_test_result(t)}")
        else:
            lines.append("dbt tests of the last invocation: none warn or fail")
    lines.append(f"overall: {summary['worst']}")
    # the values in these lines come from the warehouse (an engine's message can quote a bronze
    # value): each line is made inert, so a value cannot act on the terminal or start a line
    return "\n".join(inert(line) for line in lines) + "\n"


# -- I/O -------------------------------------------------------------------------------------------
def read(session, project_dir: Path) -> tuple:
    from .report.collect import bronze_column_changes
    from .report.dbt_source import DbtQueryError
    manifest = session.parse()
    if session.node(MART) is None:
        raise DbtQueryError("the dbt project has no `mart_data_quality` model",
                            ["run `bloomery compile` into this project's models, then `dbt build`"])
    accounting = session.rows(
        f"select * from {{{{ ref('mart_data_quality') }}}} where rule = '{ENTITY_ROW}'",
        "could not read mart_data_quality (has `dbt build` run since `bloomery compile`?)")
    drift: list[dict] = []
    severities: dict[str, str] = {}
    if session.node("quality_drift") is not None:
        drift = session.rows("select entity, metric, rule, run_id, metric_value, baseline_median, band, judged, "
                             "out_of_band from {{ ref('quality_drift') }} where is_latest",
                             "could not read quality_drift")
        entities = {str(r["entity"]) for r in accounting}
        for node in manifest.nodes.values():
            if "test" not in str(node.resource_type).lower():
                continue
            deps = getattr(getattr(node, "depends_on", None), "nodes", None) or []
            if not any(d.endswith(".quality_drift") for d in deps):
                continue
            entity = _entity_of(node.name, entities)
            severity = str(getattr(node.config, "severity", "warn") or "warn").lower()
            # one node reports the measures and the bronze columns (emit/mart.py, _drift_tests):
            # its `blocking` argument says which part the severity is for
            blocking = (getattr(getattr(node, "test_metadata", None), "kwargs", None) or {}).get("blocking")
            if severity == "error" and blocking is not None and "measures" not in json.loads(blocking):
                severity = "warn"
            if entity and (severity == "error" or entity not in severities):
                severities[entity] = severity
    limits = quarantine_limits(manifest)
    columns: dict[str, list[dict]] = {}
    if session.node("quality_bronze_columns") is not None:
        # every bronze relation's changes since the build before, given to the entities whose
        # drift test watches that relation
        changes = bronze_column_changes(session)
        for entity, sources in _watched_sources(manifest).items():
            columns[entity] = [c for c in changes if c["source_name"] in sources]
    run_results = None
    path = Path(project_dir) / "target" / "run_results.json"
    if path.is_file():
        try:
            run_results = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            run_results = None
    return accounting, drift, run_results, severities, limits, columns


def _bloomery_tests(manifest, test: str, *names: str):
    """(node, arguments) of each generated test of the package's generic `test`: the arguments
    `names`, read back from the inert JSON the compiler wrote (emit/audits.py, _test; the relation
    arguments are dbt's Jinja, not JSON, and are not asked for)."""
    for node in manifest.nodes.values():
        meta = getattr(node, "test_metadata", None)
        if meta is not None and meta.name == test:
            yield node, {k: json.loads(v) if isinstance(v, str) else v
                         for k, v in meta.kwargs.items() if k in names}


def _watched_sources(manifest) -> dict[str, set[str]]:
    """entity -> the bronze relations whose column changes its drift test reports (its `sources`)."""
    return {args["entity"]: set(args["sources"]) for _, args in _bloomery_tests(manifest, "bloomery_drift", "entity", "sources")
            if args.get("sources")}


def quarantine_limits(manifest) -> dict[str, dict]:
    """Each quarantine-rate test's thresholds in basis points, by test name: its `above` argument
    ({column: bp}) and the column its warn_if / error_if read (emit/mart.py, _crossed)."""
    limits = {}
    for node, args in _bloomery_tests(manifest, "bloomery_quarantine_rate", "above"):
        above = args.get("above") or {}
        found = {}
        for level in ("warn", "error"):
            condition = str(getattr(node.config, f"{level}_if", "") or "")
            found[level] = next((int(bp) for column, bp in above.items() if f"max({column})" in condition), None)
        if found["warn"] is not None:
            limits[node.name] = found
    return limits


def run(args) -> int:
    from .report.dbt_source import DbtQueryError, DbtSession
    try:
        with DbtSession(Path(args.project_dir), Path(args.profiles_dir) if args.profiles_dir else None,
                        args.target) as session:
            accounting, drift, run_results, severities, limits, columns = read(session, Path(args.project_dir))
    except DbtQueryError as exc:
        print(inert_lines(f"bloomery summary: {exc}"), file=sys.stderr)
        return 1
    summary = build(accounting, drift, run_results, severities, limits, columns)
    if args.format == "json":
        print(json.dumps(summary, indent=2, default=str))
    else:
        print(to_text(summary), end="")
    return exit_status(summary, args.fail_on)
