"""The latest run in numbers: the tiles, the rows per entity (kept, flagged, quarantined,
deduped), the top failing rules with their disposition and the change since the run before, and
the bronze columns that changed.
"""
from __future__ import annotations

from .markup import DISPOSITIONS, esc, num, pct
from .model import EntityCounts, ReportModel, RuleRow


def tiles_section(model: ReportModel) -> str:
    c = model.counts
    flagged = None if any(x.flagged is None for x in c) else sum(x.flagged for x in c)
    evaluated = sum(x.evaluated for x in c)
    quarantined = sum(x.quarantined for x in c)
    tiles = [("evaluated", "Evaluated", num(evaluated), "rows judged in the latest run"),
             ("kept", "Kept", num(sum(x.kept for x in c)), "published in the entities"),
             ("flagged", "Flagged", num(flagged), "kept, with a flag"),
             ("quarantined", "Quarantined", num(quarantined),
              f"{pct(quarantined / evaluated) if evaluated else '–'} of evaluated, unresolved"),
             ("deduped", "Deduped", num(sum(x.deduped for x in c)), "lost dedupe to a better row")]
    return '<section class="tiles">' + "".join(
        f'<div class="tile t-{cls}"><div class="label">{label}</div><div class="value">{value}</div>'
        f'<div class="note">{esc(note)}</div></div>' for cls, label, value, note in tiles) + "</section>"


# -- counts ----------------------------------------------------------------------------------------
def _bar(c: EntityCounts) -> str:
    if not c.evaluated:
        return '<div class="bar empty"></div>'
    flagged = min(c.flagged or 0, c.kept)
    parts = [("clean", c.kept - flagged, "kept, no flag"), ("flagged", flagged, "kept, flagged"),
             ("quarantined", c.quarantined, "quarantined")]
    return '<div class="bar">' + "".join(
        f'<span class="{cls}" style="width:{100 * v / c.evaluated:.2f}%" title="{esc(f"{v:,} {label}")}"></span>'
        for cls, v, label in parts if v) + "</div>"


def counts_section(model: ReportModel) -> str:
    rows = "".join(
        f'<tr><th scope="row">{esc(c.entity)}</th><td class="n">{num(c.evaluated)}</td><td class="n">{num(c.kept)}</td>'
        f'<td class="n">{num(c.flagged)}</td><td class="n">{num(c.quarantined)}</td><td class="n">{num(c.deduped)}</td>'
        f'<td class="n">{esc(pct(c.rate))}</td><td class="barcell">{_bar(c)}</td></tr>'
        for c in model.counts)
    return ('<section class="card"><h2>Rows per entity, latest run</h2>'
            '<p class="hint">Evaluated = kept + quarantined (unresolved rejects). Flagged rows are kept rows whose '
            '<code>_quality_flags</code> is not empty, counted in the entity now. Deduped rows lost to a better delivery '
            'of their key and are outside the evaluated rows.</p>'
            '<table class="counts"><thead><tr><th>entity</th><th class="n">evaluated</th><th class="n">kept</th>'
            '<th class="n">flagged</th><th class="n">quarantined</th><th class="n">deduped</th>'
            '<th class="n">quarantine rate</th><th class="barcell"><span class="key clean"></span>kept '
            '<span class="key flagged"></span>flagged <span class="key quarantined"></span>quarantined</th></tr></thead>'
            f'<tbody>{rows}</tbody></table></section>')


# -- rules -----------------------------------------------------------------------------------------
def badge(disposition: str) -> str:
    known = disposition if disposition in DISPOSITIONS else "other"
    return f'<span class="badge {known}">{esc(disposition)}</span>'


def _change(r: RuleRow, has_previous: bool) -> str:
    if not has_previous:
        return '<span class="muted">–</span>'
    if r.previous is None:
        return '<span class="muted">new rule</span>'
    delta = r.rows - r.previous
    if delta == 0:
        return '<span class="muted">same</span>'
    if r.rows == 0:
        return f'<span class="down">▼ {abs(delta):,} to zero</span>'
    cls = "up" if delta > 0 else "down"
    return f'<span class="{cls}">{"▲" if delta > 0 else "▼"} {abs(delta):,}</span>'


def rules_section(model: ReportModel) -> str:
    has_previous = len(model.runs) > 1
    shown = model.rules + model.went_to_zero   # a rule that stopped firing is news too: listed after the others
    table = "" if model.rules else '<p class="ok">No rule fired in the latest run.</p>'
    if shown:
        rows = "".join(
            f'<tr{" class=zero" if not r.rows else ""}><td>{esc(r.entity)}</td><td><code>{esc(r.rule)}</code></td>'
            f'<td>{badge(r.disposition)}</td>'
            f'<td class="n">{num(r.rows)}</td><td class="n">{esc(pct(r.rows / r.evaluated) if r.evaluated else "–")}</td>'
            f'<td class="n">{_change(r, has_previous)}</td></tr>'
            for r in shown)
        table += ('<table class="rules"><thead><tr><th>entity</th><th>rule</th><th>disposition</th><th class="n">rows</th>'
                  '<th class="n">of evaluated</th><th class="n">vs previous run</th></tr></thead>'
                  f'<tbody>{rows}</tbody></table>')
    more = model.rules_firing - len(model.rules)
    zero = len(model.went_to_zero)
    note = (f"{model.rules_firing} of {model.rules_total} rules fired in the latest run"
            + (f"; the {len(model.rules)} with the most rows are shown" if more > 0 else "")
            + (f"; {zero} went to zero since the run before" if zero else "") + ".")
    legend = "".join(f'<li>{badge(d)} {text}</li>' for d, text in DISPOSITIONS.items())
    others = [d for d in model.dispositions if d not in DISPOSITIONS]
    legend += "".join(f'<li>{badge(d)} as the mart names it</li>' for d in others)
    return (f'<section class="card"><h2>Top failing rules, latest run</h2><p class="hint">{esc(note)}</p>{table}'
            f'<ul class="dispositions">{legend}</ul></section>')


def bronze_columns_section(changes: list[dict]) -> str:
    """The columns the bronze relations gained, lost or retyped since the build before: what each
    entity's drift test reports as rows, named here (nothing when nothing changed)."""
    if not changes:
        return ""
    rows = "".join(
        f"<tr><td><code>{esc(c['source_name'])}</code></td><td><code>{esc(c['column_name'])}</code></td>"
        f"<td>{esc(c['change'])}</td><td>{esc(c['type_before'] or '–')}</td>"
        f"<td>{esc(c['type_after'] or '–')}</td></tr>"
        for c in changes)
    return ('<section class="card"><h2>Bronze columns changed since the build before</h2>'
            '<p class="hint">A column added is not read until a mapping reads it; a column lost that a mapping reads '
            'stops the entity\'s <code>__staged</code> model.</p>'
            '<table class="columns"><thead><tr><th>relation</th><th>column</th><th>change</th><th>type before</th>'
            f'<th>type after</th></tr></thead><tbody>{rows}</tbody></table></section>')
