"""The chart: the quarantine rate per entity over the runs, as inline SVG, with the baseline band
and the out-of-band rings of the drift tests (quality_drift), and the legend under it. Inline so
the page stays one file that loads nothing.
"""
from __future__ import annotations

import math

from .markup import esc, pct
from .model import ReportModel

# Tableau 10: distinct on white, and still told apart by most colour-blind readers next to the legend.
PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1",
           "#76b7b2", "#edc948", "#9c755f", "#ff9da7", "#bab0ac"]
DASHES = ["", "6 4", "2 3"]          # after ten entities the colours repeat with another dash
FLAGGED = "#d62728"                  # the ring around a run that a drift test found out of band
BAND_OPACITY = 0.18                  # the baseline band: the entity's colour, light


def colour_of(index: int) -> tuple[str, str]:
    return PALETTE[index % len(PALETTE)], DASHES[(index // len(PALETTE)) % len(DASHES)]


def _nice_step(span: float, ticks: int = 4) -> float:
    raw = span / ticks
    power = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 2.5, 5, 10):
        if raw <= m * power:
            return m * power
    return 10 * power


def chart_svg(model: ReportModel) -> str:
    """Quarantine rate per entity over the chart's runs: one polyline per entity."""
    runs = model.chart_runs
    timed = any(r.run_time for r in runs)   # a third line under each tick: the time the run started
    width, height = 1040, 334 if timed else 320
    left, right, top, bottom = 60, 28, 18, 68 if timed else 54
    pw, ph = width - left - right, height - top - bottom
    values = [v for s in model.series.values() for v in s if v is not None]
    values += [b[1] for bands in model.bands.values() for b in bands if b is not None]
    peak = max(values, default=0.0) * 100
    step = _nice_step(peak) if peak > 0 else 1.0
    top_value = max(step * math.ceil(peak / step - 1e-9), step)
    n = len(runs)

    inset = 36                       # room for the first and last run's date under the axis

    def x(i: int) -> float:
        return left + pw / 2 if n == 1 else left + inset + (pw - 2 * inset) * i / (n - 1)

    def y(rate: float) -> float:
        return top + ph - ph * (rate * 100) / top_value

    parts = [f'<svg class="chart" viewBox="0 0 {width} {height}" width="100%" role="img" '
             f'aria-label="Quarantine rate per entity over the last {n} runs{_drift_alt(model)}" '
             'xmlns="http://www.w3.org/2000/svg">']
    tick = 0.0
    while tick <= top_value + 1e-9:
        ty = y(tick / 100)
        label = f"{tick:g}%"
        parts.append(f'<line class="grid" x1="{left}" x2="{width - right}" y1="{ty:.1f}" y2="{ty:.1f}"/>'
                     f'<text class="ytick" x="{left - 8}" y="{ty + 4:.1f}" text-anchor="end">{esc(label)}</text>')
        tick += step
    every = max(1, math.ceil(n / 10))
    for i, run in enumerate(runs):
        if i % every and i != n - 1:
            continue
        if i != n - 1 and n - 1 - i < every:
            continue   # leave room for the newest run's label
        parts.append(f'<line class="xtick" x1="{x(i):.1f}" x2="{x(i):.1f}" y1="{top + ph}" y2="{top + ph + 5}"/>'
                     f'<text class="xlabel" x="{x(i):.1f}" y="{top + ph + 20}" text-anchor="middle">#{run.number}</text>'
                     f'<text class="xdate" x="{x(i):.1f}" y="{top + ph + 36}" text-anchor="middle">{esc(run.run_date)}</text>'
                     + (f'<text class="xtime" x="{x(i):.1f}" y="{top + ph + 51}" text-anchor="middle">'
                        f'{esc(run.run_time[11:16])}</text>' if run.run_time else ""))
    parts.append(f'<line class="axis" x1="{left}" x2="{width - right}" y1="{top + ph}" y2="{top + ph}"/>')
    radius = 4 if n <= 40 else 2.5
    for index, (entity, series) in enumerate(model.series.items()):
        colour, _ = colour_of(index)
        parts += _band_paths(entity, model.bands.get(entity) or [], colour, x, y)
    for index, (entity, series) in enumerate(model.series.items()):
        colour, dash = colour_of(index)
        points = [(x(i), y(v), i, v) for i, v in enumerate(series) if v is not None]
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        parts.append(f'<polyline class="series" data-entity="{esc(entity)}" fill="none" stroke="{colour}" '
                     f'stroke-width="3" stroke-linejoin="round" stroke-linecap="round"{dash_attr} points="'
                     + " ".join(f"{px:.1f},{py:.1f}" for px, py, _, _ in points) + '"/>')
        flagged = model.flagged_runs.get(entity, {})
        for px, py, i, v in points:
            run = runs[i]
            drifted = f"; out of band: {', '.join(flagged[i])}" if i in flagged else ""
            if i in flagged:
                parts.append(f'<circle class="flagged" data-entity="{esc(entity)}" cx="{px:.1f}" cy="{py:.1f}" '
                             f'r="{radius + 5}" fill="none" stroke="{FLAGGED}" stroke-width="2.5"/>')
            parts.append(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="{radius}" fill="{colour}">'
                         f'<title>{esc(entity)}: {esc(pct(v, 2))} quarantined in run #{run.number} '
                         f'({esc(run.when)}, {esc(run.run_id)}){esc(drifted)}</title></circle>')
    parts.append("</svg>")
    return "".join(parts)


def _drift_alt(model: ReportModel) -> str:
    """The chart's text alternative says what the band and the rings show, for a screen reader."""
    said = []
    if model.bands:
        said.append(f"the baseline band of {', '.join(sorted(model.bands))}")
    flagged = sorted(model.flagged_runs)
    if flagged:
        said.append("runs out of band ringed for " + ", ".join(
            f"{e} (run {', '.join('#' + str(model.chart_runs[i].number) for i in sorted(model.flagged_runs[e]))})"
            for e in flagged))
    return esc("; with " + "; ".join(said)) if said else ""


def _band_paths(entity: str, bands: list, colour: str, x, y) -> list[str]:
    """The baseline band of an entity's quarantine rate, median to median + band, as quality_drift
    judged each run: one filled area per stretch of consecutive judged runs (a lone judged run is
    a short bar), under the line, in the entity's colour made light."""
    out, stretch = [], []
    for i, b in enumerate(bands + [None]):
        if b is not None:
            stretch.append((i, b))
            continue
        if stretch:
            xs = [x(i) for i, _ in stretch] if len(stretch) > 1 else [x(stretch[0][0]) - 6, x(stretch[0][0]) + 6]
            lows = [y(lo) for _, (lo, _) in stretch] if len(stretch) > 1 else [y(stretch[0][1][0])] * 2
            highs = [y(hi) for _, (_, hi) in stretch] if len(stretch) > 1 else [y(stretch[0][1][1])] * 2
            edge = [(px, py) for px, py in zip(xs, highs)] + [(px, py) for px, py in reversed(list(zip(xs, lows)))]
            out.append(f'<polygon class="band" data-entity="{esc(entity)}" fill="{colour}" fill-opacity="{BAND_OPACITY}" '
                       'stroke="none" points="' + " ".join(f"{px:.1f},{py:.1f}" for px, py in edge) + '">'
                       f'<title>{esc(entity)}: baseline band of the quarantine rate (quality_drift)</title></polygon>')
            stretch = []
    return out


def chart_section(model: ReportModel) -> str:
    shown = len(model.chart_runs)
    scope = (f"the last {shown} of {len(model.runs)} runs" if shown < len(model.runs)
             else f"{shown} run{'s' if shown != 1 else ''}")
    latest = {c.entity: c.rate for c in model.counts}
    legend = []
    for index, entity in enumerate(model.series):
        colour, dash = colour_of(index)
        style = f"background:{colour}" if not dash else f"background:repeating-linear-gradient(90deg,{colour} 0 6px,transparent 6px 9px)"
        legend.append(f'<li><span class="swatch" style="{style}"></span><span class="name">{esc(entity)}</span>'
                      f'<span class="rate">{esc(pct(latest.get(entity)))}</span></li>')
    return (f'<section class="card"><h2>Quarantine rate per run</h2>'
            f'<p class="hint">Unresolved rejects ÷ rows evaluated, per entity, over {esc(scope)}. '
            + ('One point per run, in the order the runs started, labelled with the time each started (UTC).'
               if model.chart_runs and all(r.run_time for r in model.chart_runs) else
               'Runs of one day are in the order the mart stores them.') + '</p>'
            f'{chart_svg(model)}<ul class="legend">{"".join(legend)}{_drift_legend(model)}</ul></section>')


def _drift_legend(model: ReportModel) -> str:
    """What the band and the rings mean, when the chart has either (quality_drift has judged a run)."""
    items = []
    if model.bands:
        items.append('<li class="drift"><span class="swatch band-swatch"></span><span class="name">baseline band: the '
                     'median of the runs before, up to the rate a drift test calls out of band '
                     '(docs/quality-rules.md, drift tests)</span></li>')
    if model.flagged_runs:
        items.append(f'<li class="drift"><span class="swatch ring" style="border-color:{FLAGGED}"></span><span '
                     'class="name">a run a drift test found out of band (quarantine rate, volume or a rule: hover '
                     'the point)</span></li>')
    return "".join(items)
