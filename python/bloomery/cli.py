"""The `bloomery` command.

  bloomery check   --specs DIR [--format text|json]
  bloomery compile --specs DIR --out DIR [--check] [--format text|json] [--target-dialect NAME]
  bloomery plan    --new DIR [--old DIR | --against-compiled OUT] [--format text|json] [--fail-on-breaking]
  bloomery report  [--project-dir DIR] [--profiles-dir DIR] [--target T] [--specs DIR] [--out FILE]
  bloomery summary [--project-dir DIR] [--profiles-dir DIR] [--target T] [--format text|json] [--fail-on warn|error|never]

Exit codes: 0 clean, 1 the specs were refused (the errors of the first stage that fails, sorted by location),
2 bloomery itself failed (a bug: please report it with the spec that caused it),
3 `plan --fail-on-breaking` found a breaking change, or `compile --check` found --out not what the specs
compile to. `report` and `summary` exit 1 when dbt could not read the warehouse.
4 `summary --fail-on warn|error` found a drift or a failing dbt test at that severity or worse.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from . import __version__
from .resolve import check_project
from .errors import BloomeryError, errors_of as _errors_of, print_errors as _report_errors
from .terminal import inert


def cmd_check(args) -> int:
    # the files are rendered and dropped: a refusal found only on the generated names (two nodes
    # of one name, a generated relation named like bronze, a name too long) is `check`'s too
    from .emit.dbt import render
    try:
        project = check_project(Path(args.specs))
    except BloomeryError as exc:
        return _report_errors(exc, args.format)
    try:
        render(project)
    except BloomeryError as exc:
        for error in _errors_of(exc):
            project.relocate(error)
        return _report_errors(exc, args.format)
    rules = sum(len(e.rules) for e in project.entities.values())
    if args.format == "json":
        print(json.dumps([]))
    else:
        print(f"ok: {len(project.files)} spec file(s), {len(project.entities)} entit(ies), {rules} rule(s)")
    return 0


def cmd_compile(args) -> int:
    from .emit.dbt import plan_changes, write
    from .plan import write_snapshot
    try:
        project = check_project(Path(args.specs))
    except BloomeryError as exc:
        return _report_errors(exc, args.format)
    if args.target_dialect:
        from .emit.dialects import check_target
        try:
            check_target(project, args.target_dialect)
        except BloomeryError as exc:
            for error in _errors_of(exc):
                project.relocate(error)
            return _report_errors(exc, args.format)
    try:
        if args.check:
            return _check_compiled(args, plan_changes(project, Path(args.out), Path(args.specs)))
        report = write(project, Path(args.out), Path(args.specs))
    except BloomeryError as exc:
        # emit knows the spec path of what it refuses; the project knows its file and line
        for error in _errors_of(exc):
            project.relocate(error)
        return _report_errors(exc, args.format)
    write_snapshot(Path(args.specs), Path(args.out))  # what `plan --against-compiled` diffs against
    if args.format == "json":
        print(json.dumps(report, indent=2))
    else:
        print(inert(f"compiled {len(project.entities)} entit(ies) into {args.out}: "
                    f"{len(report['written'])} written, {len(report['unchanged'])} unchanged, "
                    f"{len(report['removed'])} removed"))
    return 0


OUT_OF_DATE = 3


def _check_compiled(args, changes) -> int:
    """`compile --check`: the plan `compile` would apply, and the plan snapshot it would write, said
    and not done. Exit 0 when the folder is what the specs produce, 3 when it is not."""
    import tempfile
    from .plan import write_snapshot
    from .plan.snapshot import snapshot_path
    missing, changed = list(changes.missing), list(changes.changed)
    with tempfile.TemporaryDirectory(prefix="bloomery-check-") as tmp:   # the snapshot as compile writes it
        wanted = write_snapshot(Path(args.specs), Path(tmp)).read_text(encoding="utf-8")
    current = snapshot_path(Path(args.out))
    name = current.relative_to(Path(args.out)).as_posix()
    if not current.is_file():
        missing.append(name)
    elif current.read_text(encoding="utf-8") != wanted:
        changed.append(name)
    up_to_date = not (missing or changed or changes.stale)
    if args.format == "json":
        print(json.dumps({"up_to_date": up_to_date, "missing": missing, "changed": changed, "stale": changes.stale},
                         indent=2))
    elif up_to_date:
        print(inert(f"up to date: {args.out} holds what {args.specs} compiles to ({len(changes.files)} file(s))"))
    else:
        for what, names in (("missing", missing), ("changed", changed)):
            for n in names:
                print(inert(f"{what}: {n}"))
        for n in changes.stale:
            print(inert(f"stale: {n} (would be removed)"))
        print(inert(f"{args.out} is not what {args.specs} compiles to: run `bloomery compile --specs {args.specs} "
                    f"--out {args.out}` (nothing was written)"))
    return 0 if up_to_date else OUT_OF_DATE


def cmd_plan(args) -> int:
    from .plan import load_compiled, load_project, plan, to_json, to_text
    notes: list[str] = []
    try:
        if args.against_compiled:
            old, notes = load_compiled(Path(args.against_compiled))
        elif args.old:
            old = load_project(Path(args.old))
        else:
            old = None  # nothing deployed yet
        result = plan(old, load_project(Path(args.new)))
    except BloomeryError as exc:
        return _report_errors(exc, args.format)
    result.notes[:0] = notes
    print(to_json(result) if args.format == "json" else to_text(result), end="" if args.format == "text" else "\n")
    return 3 if args.fail_on_breaking and result.breaking else 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="bloomery", description="Data-quality specs for dbt.")
    parser.add_argument("--version", action="version", version=f"bloomery {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    check = sub.add_parser("check", help="validate a spec tree; exit 1 with the errors found, sorted by location")
    check.add_argument("--specs", required=True, help="folder holding the spec files")
    check.add_argument("--format", choices=("text", "json"), default="text")
    check.set_defaults(run=cmd_check)

    comp = sub.add_parser("compile", help="write the dbt files for a spec tree")
    comp.add_argument("--specs", required=True, help="folder holding the spec files")
    comp.add_argument("--out", required=True, help="folder inside the dbt project's models to write into")
    comp.add_argument("--format", choices=("text", "json"), default="text")
    comp.add_argument("--check", action="store_true",
                      help="write nothing; exit 3 naming every file that is missing, changed or stale in --out "
                           "(for CI and pre-commit), 0 when it is what the specs compile to")
    comp.add_argument("--target-dialect", metavar="NAME",
                      help="refuse what this dbt target can not run (duckdb, postgres, redshift, trino, snowflake, "
                           "bigquery, spark, databricks): UnsupportedByTarget")
    comp.set_defaults(run=cmd_compile)

    pl = sub.add_parser("plan", help="classify the change between two spec versions; list the backfill and "
                                     "replay commands it needs")
    pl.add_argument("--new", required=True, help="folder holding the new spec files")
    old = pl.add_mutually_exclusive_group()
    old.add_argument("--old", help="folder holding the spec files currently deployed")
    old.add_argument("--against-compiled", metavar="OUT",
                     help="the --out folder of the last `bloomery compile`: diff against what it compiled")
    pl.add_argument("--format", choices=("text", "json"), default="text")
    pl.add_argument("--fail-on-breaking", action="store_true", help="exit 3 when a change is breaking")
    pl.set_defaults(run=cmd_plan)

    from .report import add_arguments as report_arguments, run as cmd_report  # imports dbt only when it runs
    rep = sub.add_parser("report", help="write a static HTML data-quality report, read from the warehouse through dbt")
    report_arguments(rep)
    rep.set_defaults(run=cmd_report)

    from .summary import add_arguments as summary_arguments, run as cmd_summary  # imports dbt only when it runs
    summ = sub.add_parser("summary", help="the latest run per entity (counts, rates, drift, failing tests), "
                                          "for CI and chat; --fail-on sets the exit status")
    summary_arguments(summ)
    summ.set_defaults(run=cmd_summary)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # a bug in bloomery, never the user's spec: say so plainly
        print(inert(f"bloomery: internal error ({type(exc).__name__}: {exc}). This is a bug; "
                    "please report it with the spec files that caused it."), file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
