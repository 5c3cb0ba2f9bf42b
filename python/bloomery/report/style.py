"""The page's stylesheet, inline in its <style>: the Content-Security-Policy allows inline styles
and nothing remote, so the page looks the same opened from disk or from a mail attachment.
"""

CSS = """
:root { --ink:#1f2933; --muted:#6b7785; --line:#e3e7ec; --bg:#f5f6f8; --card:#fff;
  --clean:#59a14f; --flag:#e0a526; --quar:#d64545; --fail:#7b1e1e; --dedup:#8795a1; }
* { box-sizing:border-box; }
body { margin:0; background:var(--bg); color:var(--ink);
  font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,"Liberation Sans",sans-serif; }
main { max-width:1140px; margin:0 auto; padding:28px 24px 40px; }
header h1 { margin:0 0 4px; font-size:26px; letter-spacing:-.01em; }
.sub { margin:0 0 20px; color:var(--muted); }
code { font:13px ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace; }
.card { background:var(--card); border:1px solid var(--line); border-radius:10px; padding:18px 22px 20px;
  margin:0 0 18px; box-shadow:0 1px 2px rgba(16,24,40,.04); }
.card h2 { margin:0 0 4px; font-size:18px; }
.hint { margin:0 0 12px; color:var(--muted); font-size:13.5px; }
.tiles { display:grid; grid-template-columns:repeat(5,1fr); gap:12px; margin:0 0 18px; }
.tile { background:var(--card); border:1px solid var(--line); border-radius:10px; padding:12px 16px;
  border-top:4px solid var(--muted); }
.tile .label { font-size:12.5px; text-transform:uppercase; letter-spacing:.05em; color:var(--muted); }
.tile .value { font-size:28px; font-weight:650; font-variant-numeric:tabular-nums; }
.tile .note { font-size:12.5px; color:var(--muted); }
.t-kept { border-top-color:var(--clean); } .t-flagged { border-top-color:var(--flag); }
.t-quarantined { border-top-color:var(--quar); } .t-deduped { border-top-color:var(--dedup); }
.t-evaluated { border-top-color:#4e79a7; }
svg.chart { display:block; max-width:100%; height:auto; font-size:13px; }
svg .grid { stroke:#e8ebef; stroke-width:1; } svg .axis { stroke:#9aa5b1; stroke-width:1; }
svg .xtick { stroke:#9aa5b1; } svg text { fill:#52606d; } svg .xdate, svg .xtime { fill:#8795a1; font-size:12px; }
.legend { list-style:none; display:flex; flex-wrap:wrap; gap:8px 22px; margin:10px 0 0 60px; padding:0; }
.legend li { display:flex; align-items:center; gap:7px; }
.swatch { display:inline-block; width:22px; height:12px; border-radius:3px; }
.band-swatch { background:#888; opacity:.3; }
.swatch.ring { width:12px; background:none; border:2.5px solid; border-radius:50%; }
.legend .rate { color:var(--muted); font-variant-numeric:tabular-nums; }
table { border-collapse:collapse; width:100%; }
th, td { text-align:left; padding:7px 10px; border-bottom:1px solid var(--line); vertical-align:top; }
thead th { font-size:12.5px; text-transform:uppercase; letter-spacing:.04em; color:var(--muted); font-weight:600;
  border-bottom:2px solid var(--line); }
tbody th { font-weight:600; }
.n { text-align:right; font-variant-numeric:tabular-nums; white-space:nowrap; }
.barcell { width:30%; } thead .barcell { text-transform:none; letter-spacing:0; font-weight:500; }
.bar { display:flex; height:14px; border-radius:4px; overflow:hidden; background:#eef1f4; margin-top:3px; }
.bar span { display:block; height:100%; }
.clean { background:var(--clean); } .flagged { background:var(--flag); } .quarantined { background:var(--quar); }
.key { display:inline-block; width:10px; height:10px; border-radius:2px; margin:0 4px 0 10px; vertical-align:-1px; }
.badge { display:inline-block; padding:1px 9px; border-radius:999px; font-size:12.5px; font-weight:600; }
.badge.flag { background:#fcf1d6; color:#8a5a00; } .badge.quarantine { background:#fde3e3; color:#a61b1b; }
.badge.fail { background:var(--fail); color:#fff; } .badge.other { background:#e8ebef; color:#3e4c59; }
.dispositions { list-style:none; display:flex; flex-wrap:wrap; gap:6px 22px; padding:0; margin:14px 0 0;
  color:var(--muted); font-size:13.5px; }
.up { color:#b42318; } .down { color:#2f7d32; } .muted { color:var(--muted); }
tr.zero td { color:var(--muted); } tr.zero .down { color:#2f7d32; font-weight:600; }
.ok { color:#2f7d32; margin:6px 0; } .error { color:#b42318; }
.sample + .sample { margin-top:22px; }
.sample h3 { margin:14px 0 6px; font-size:16px; }
.sample h3 .count { font-weight:400; color:var(--muted); font-size:14px; margin-left:6px; }
.rejects > tbody > tr > td { padding-top:10px; padding-bottom:10px; }
.rulescell { width:22%; } .keycell { width:16%; font-size:13.5px; } .seen { width:16%; font-size:13px; white-space:nowrap; }
.chip { display:inline-block; margin:0 4px 4px 0; padding:1px 8px; border-radius:6px; background:#e8ebef;
  color:#3e4c59; font:12.5px ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace; }
.chip.quarantine { background:#fde3e3; color:#8f1d1d; } .chip.flag { background:#fcf1d6; color:#7a4f00; }
.chip.fail { background:var(--fail); color:#fff; }
.k { color:var(--muted); }
table.raw { width:100%; font:12.5px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace; }
table.raw th, table.raw td { border:0; padding:1px 8px 1px 0; font-weight:400; }
table.raw th { color:var(--muted); white-space:nowrap; width:1%; }
table.raw td { overflow-wrap:anywhere; }
table.raw tr.meta th, table.raw tr.meta td { color:#9aa5b1; }
.redacted { display:inline-block; padding:0 7px; border-radius:4px; background:#2d3a48; color:#fff;
  font:11.5px system-ui,sans-serif; letter-spacing:.05em; text-transform:uppercase; }
.null { color:#9aa5b1; font-style:italic; } .cut { color:var(--muted); }
footer { color:var(--muted); font-size:12.5px; margin-top:8px; }
@media (max-width:800px) { .tiles { grid-template-columns:repeat(2,1fr); } }
"""
