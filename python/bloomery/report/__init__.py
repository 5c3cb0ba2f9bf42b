"""`bloomery report`: a static HTML page about data quality, read from the warehouse through dbt.

  collect.py     the queries, run through dbt in-process (dbt_source.py), with progress lines
  model.py       plain rows -> what the page shows (pure)
  render.py      what the page shows -> HTML (pure), put together from its sections:
    chart.py     the quarantine rate per run as an inline SVG chart, with the drift band and rings
    tables.py    the tiles, the rows per entity and the top failing rules
    rejects.py   the sample of unresolved rejects, redacted columns named, never shown
    markup.py    how a value is written into the page (escaped, numbers, times, rates)
    style.py     the inline stylesheet

This module only wires the command line; it imports dbt lazily, so `bloomery check` and
`compile` never need it.
"""
from __future__ import annotations

import argparse
import datetime as dt
import os
import sys
from pathlib import Path

from ..terminal import inert_lines


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--project-dir", default=".", help="the dbt project (default: the current folder)")
    parser.add_argument("--profiles-dir", help="folder holding profiles.yml (default: dbt's own lookup)")
    parser.add_argument("--target", help="dbt target to read (default: the profile's)")
    parser.add_argument("--specs", help="spec folder: redacted columns come from it (default: from what "
                                        "`bloomery compile` wrote into the dbt project)")
    parser.add_argument("--out", default="bloomery_report.html", help="HTML file to write (default: %(default)s)")
    parser.add_argument("--runs", type=int, default=60, help="runs drawn in the chart, the newest; 0 for all (default: %(default)s)")
    parser.add_argument("--sample", type=int, default=5, help="unresolved rejects shown per entity (default: %(default)s)")
    parser.add_argument("--top", type=int, default=20, help="failing rules listed (default: %(default)s)")
    parser.add_argument("--title", default="Data quality report")
    parser.add_argument("--target-path", help="folder for dbt's artifacts while reading (default: a temporary "
                                              "folder; give one to reuse dbt's partial parsing between reports)")


def _progress(message: str) -> None:
    print(inert_lines(f"bloomery report: {message}"), file=sys.stderr, flush=True)


def run(args) -> int:
    from ..errors import BloomeryError, print_errors
    from .collect import Options, collect, specs_redaction
    from .dbt_source import DbtQueryError, DbtSession
    from .render import render_html

    options = Options(sample=args.sample, max_runs=args.runs, top_rules=args.top, title=args.title)
    if args.specs:
        try:
            options.redact = specs_redaction(Path(args.specs))
        except BloomeryError as exc:
            return print_errors(exc, "text")
    try:
        with DbtSession(Path(args.project_dir), Path(args.profiles_dir) if args.profiles_dir else None, args.target,
                        Path(args.target_path) if args.target_path else None) as session:
            data = collect(session, options, _progress)
    except DbtQueryError as exc:
        print(inert_lines(f"bloomery report: {exc}"), file=sys.stderr)   # dbt's messages can quote bronze values
        return 1
    data.generated_at = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    page = render_html(data)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(page, encoding="utf-8")
    os.replace(tmp, out)
    _progress(f"wrote {out} ({len(page.encode('utf-8')) / 1024:.0f} KB)")
    return 0
