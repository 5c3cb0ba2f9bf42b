"""The reject sample: per entity, the unresolved rows of its reject table with the rules each
failed and its bronze row as stored in `raw`. This is where user data reaches the page, so every
value is escaped and a redacted column is named, never shown.
"""
from __future__ import annotations

import json

from .markup import DISPOSITIONS, esc, num, when
from .model import ReportModel, RejectSample, as_json, as_list, as_text

REDACTED = "redacted"
LOADER = ("_ingested_at", "_load_id", "_source_row_id")   # shown beside the row (last seen, load, row id)
VALUE_CHARS = 160                    # longer raw values are cut, with their length said


def _value(value) -> str:
    if value is None:
        return '<span class="null">null</span>'
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    if len(text) > VALUE_CHARS:
        return f'{esc(text[:VALUE_CHARS])}<span class="cut">… ({len(text):,} characters)</span>'
    return esc(text) if text else '<span class="null">empty</span>'


def raw_fields(raw, redact: list[str]) -> list[tuple[str, object, bool]]:
    """(column, value, redacted): bronze columns by name, then the loader's `_` columns; redacted
    columns are listed, never their value."""
    masked = set(redact)
    if isinstance(raw, dict):
        fields = [(k, None if k in masked else v, k in masked) for k, v in raw.items() if k not in LOADER]
        fields += [(c, None, True) for c in masked - set(raw)]
        return sorted(fields, key=lambda f: (f[0].startswith("_"), f[0]))
    return [("(raw)", raw, False)] + [(c, None, True) for c in sorted(masked)]


def _raw(raw, redact: list[str]) -> str:
    rows = "".join(
        f'<tr{" class=meta" if name.startswith("_") else ""}><th>{esc(name)}</th><td>'
        + (f'<span class="redacted">{REDACTED}</span>' if hidden else _value(value)) + "</td></tr>"
        for name, value, hidden in raw_fields(raw, redact))
    return f'<table class="raw">{rows}</table>'


def _keys(key_values) -> str:
    if isinstance(key_values, dict):
        return "".join(f'<div><span class="k">{esc(k)}</span> = {_value(v)}</div>' for k, v in key_values.items())
    return _value(key_values)


def _chip(entity: str, rule: str, model: ReportModel) -> str:
    disposition = model.disposition_of.get((entity, rule), "")
    known = disposition if disposition in DISPOSITIONS else "other"
    title = f' title="{esc(disposition)}"' if disposition else ""
    return f'<span class="chip {known}"{title}>{esc(rule)}</span>'


def _sample(sample: RejectSample, model: ReportModel) -> str:
    head = f'<h3>{esc(sample.entity)} <span class="count">{num(sample.unresolved)} unresolved'
    if sample.error:
        return f'{head}</span></h3><p class="error">Could not read <code>{esc(sample.entity)}__reject</code>: {esc(sample.error)}</p>'
    shown = len(sample.rows)
    head += f", {shown} shown" if shown < sample.unresolved else ""
    head += "</span></h3>"
    if sample.redact:
        head += ('<p class="hint">Redacted bronze columns, never stored in the reject table: '
                 + ", ".join(f"<code>{esc(c)}</code>" for c in sample.redact) + ".</p>")
    if not sample.rows:
        return head + '<p class="ok">No unresolved rejects.</p>'
    rows = []
    for row in sample.rows:
        chips = "".join(_chip(sample.entity, rule, model) for rule in as_list(row.get("failed_rules")))
        first, last = when(row.get("first_seen")), when(row.get("last_seen"))
        seen = f'<div class="muted">seen {esc(last)}</div>'
        if first != last:
            seen = f'<div class="muted">first {esc(first)}</div><div class="muted">last {esc(last)}</div>'
        rows.append(f'<tr><td class="rulescell">{chips}</td><td class="keycell">{_keys(as_json(row.get("key_values")))}</td>'
                    f'<td>{_raw(as_json(row.get("raw")), sample.redact)}</td>'
                    f'<td class="seen"><div><code>{esc(as_text(row.get("_source_row_id")))}</code></div>'
                    + (f'<div class="muted">load <code>{esc(as_text(row.get("_load_id")))}</code></div>'
                       if row.get("_load_id") is not None else "") + f'{seen}</td></tr>')
    return (head + '<table class="rejects"><thead><tr><th>failed rules</th><th>key</th><th>bronze row</th>'
            '<th>source row</th></tr></thead><tbody>' + "".join(rows) + "</tbody></table>")


def rejects_section(samples: list[RejectSample], model: ReportModel) -> str:
    if not samples:
        return ('<section class="card"><h2>Unresolved rejects</h2><p class="hint">No entity has a reject table '
                '(none declares <code>quarantine:</code>).</p></section>')
    return ('<section class="card"><h2>Unresolved rejects, a sample per entity</h2>'
            '<p class="hint">The most recently seen first, with the rules each row failed (coloured by their '
            'disposition) and its bronze row as stored in <code>raw</code>; redacted columns show as '
            f'<span class="redacted">{REDACTED}</span>.</p>'
            + "".join(f'<div class="sample">{_sample(s, model)}</div>' for s in samples) + "</section>")
