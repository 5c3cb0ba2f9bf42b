"""`bloomery report` rendering, from plain rows: no dbt, no warehouse."""
from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from html.parser import HTMLParser

import pytest

from bloomery.report.model import RejectSample, ReportInput, as_json, as_list, build, order_runs
from bloomery.report.render import PALETTE, REDACTED, chart_svg, raw_fields, render_html

HOSTILE = '<script>alert("x")</script>'


def accounting(run_id, run_date, entity, evaluated, quarantined, deduped=0):
    return {"entity": entity, "mapping": f"src->{entity}", "rule": "(entity)", "disposition": "(entity)",
            "run_id": run_id, "run_date": run_date, "rows_evaluated": evaluated, "rows_failed": 0,
            "rows_quarantined": quarantined, "rows_deduped": deduped}


def rule(run_id, run_date, entity, name, disposition, failed):
    return {"entity": entity, "mapping": f"src->{entity}", "rule": name, "disposition": disposition,
            "run_id": run_id, "run_date": run_date, "rows_evaluated": 0, "rows_failed": failed,
            "rows_quarantined": 0, "rows_deduped": 0}


def shop_rows():
    rows = []
    for run_id, day, q in [("r1", "2024-01-01", 2), ("r2", "2024-01-02", 4), ("r3", "2024-01-02", 3)]:
        rows += [accounting(run_id, day, "customer", 10, q, deduped=4),
                 accounting(run_id, day, "order", 17, 12),
                 rule(run_id, day, "customer", "country_length", "quarantine", q),
                 rule(run_id, day, "customer", "email_pattern", "flag", 2),
                 rule(run_id, day, "order", "status_in_enum", "quarantine", 5 if run_id == "r3" else 7),
                 rule(run_id, day, "order", "amount_positive", "fail", 0)]
    rows.append(rule("r3", "2024-01-02", "order", "ordered_at_range_min", "flag", 1))   # new in the last run
    return rows


def sample(**kw):
    row = {"failed_rules": '["country_length","email_pattern"]', "key_values": '{"customer_id":"C9"}',
           "raw": '{"_ingested_at":"2024-01-02 00:00:00","_load_id":"l2","_source_row_id":"c-9b",'
                  '"country":"ESP","email":"bad mail","id":"C9"}',
           "_source_row_id": "c-9b", "_load_id": "l2",
           "first_seen": dt.datetime(2024, 1, 2), "last_seen": dt.datetime(2024, 1, 2)}
    row.update(kw)
    return row


def page(**kw) -> str:
    data = ReportInput(mart_rows=shop_rows(), flagged={"customer": 1, "order": 2},
                       rejects=[RejectSample("customer", 4, [sample()], redact=["notes"]),
                                RejectSample("order", 12, [])], subtitle="dbt project shop · duckdb")
    for k, v in kw.items():
        setattr(data, k, v)
    return render_html(data)


class Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.attrs = [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs += [name for name, _ in attrs]


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


# -- what the page says -----------------------------------------------------------------------------
def test_runs_are_ordered_by_date_then_as_stored():
    rows = [accounting("b", "2024-01-02", "x", 1, 0), accounting("a", "2024-01-02", "x", 1, 0),
            accounting("c", "2024-01-01", "x", 1, 0), accounting("b", "2024-01-02", "y", 1, 0)]
    assert [(r.run_id, r.number) for r in order_runs(rows)] == [("c", 1), ("b", 2), ("a", 3)]


def test_latest_counts_per_entity():
    model = build(ReportInput(mart_rows=shop_rows(), flagged={"customer": 1}))
    assert model.latest.run_id == "r3"
    counts = {c.entity: (c.evaluated, c.kept, c.flagged, c.quarantined, c.deduped) for c in model.counts}
    assert counts == {"customer": (10, 7, 1, 3, 4), "order": (17, 5, None, 12, 0)}


def test_top_rules_of_the_latest_run_most_rows_first_with_the_change():
    model = build(ReportInput(mart_rows=shop_rows()))
    got = [(r.entity, r.rule, r.disposition, r.rows, r.previous) for r in model.rules]
    assert got == [("order", "status_in_enum", "quarantine", 5, 7),
                   ("customer", "country_length", "quarantine", 3, 4),
                   ("customer", "email_pattern", "flag", 2, 2),
                   ("order", "ordered_at_range_min", "flag", 1, None)]
    assert (model.rules_firing, model.rules_total) == (4, 5)
    assert model.dispositions == ["fail", "flag", "quarantine"]
    assert len(build(ReportInput(mart_rows=shop_rows(), top_rules=2)).rules) == 2


def test_values_from_any_adapter():
    assert as_list(["a", "b"]) == as_list('["a","b"]') == as_list("{a,b}") == as_list("a,b") == ["a", "b"]
    assert as_list(None) == as_list("") == as_list("[]") == []
    assert as_json('{"a": 1}') == {"a": 1} and as_json({"a": 1}) == {"a": 1} and as_json("not json") == "not json"
    model = build(ReportInput(mart_rows=[accounting("r", dt.date(2024, 1, 1), "x", Decimal(4), Decimal("1"))]))
    assert model.counts[0].kept == 3 and model.runs[0].run_date == "2024-01-01"


def test_page_shows_counts_rules_and_rejects():
    html = page()
    text = text_of(html)
    assert "customer 10 7 1 3 4 30.0%" in text          # evaluated kept flagged quarantined deduped rate
    assert "order 17 5 2 12 0 70.6%" in text
    assert "status_in_enum quarantine 5 29.4% ▼ 2" in text
    assert "ordered_at_range_min flag 1 5.9% new rule" in text
    for disposition in ("flag", "quarantine", "fail"):
        assert f'class="badge {disposition}">{disposition}<' in html
    assert "country_length" in text and "customer_id = C9" in text and "bad mail" in text
    # a reject's failed rules carry their disposition
    assert '<span class="chip quarantine" title="quarantine">country_length<' in html
    assert '<span class="chip flag" title="flag">email_pattern<' in html
    assert "4 of 5 rules fired" in text and "12 unresolved" in text and "No unresolved rejects" in text


def test_no_runs_says_so():
    html = page(mart_rows=[])
    assert "No runs yet" in html and "<svg" not in html


# -- safety -----------------------------------------------------------------------------------------
def test_every_value_is_escaped():
    raw = '{"email":"%s","%s":"v","country":"x"}' % (HOSTILE.replace('"', '\\"'), HOSTILE.replace('"', '\\"'))
    rows = [accounting("r1", "2024-01-01", HOSTILE, 3, 1), rule("r1", "2024-01-01", HOSTILE, HOSTILE, HOSTILE, 1)]
    rejects = [RejectSample(HOSTILE, 1, [sample(raw=raw, failed_rules=HOSTILE, key_values={HOSTILE: HOSTILE},
                                                _source_row_id=HOSTILE, _load_id=HOSTILE, last_seen=HOSTILE)],
                            redact=[HOSTILE]),
               RejectSample("broken", 0, [], error=HOSTILE)]
    html = page(mart_rows=rows, rejects=rejects, title=HOSTILE, subtitle=HOSTILE, generated_at=HOSTILE,
                flagged={HOSTILE: 0})
    assert "<script" not in html.lower()
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in html
    parser = Tags()
    parser.feed(html)
    assert "script" not in parser.tags
    assert not [a for a in parser.attrs if a.startswith("on")]       # no event handlers


def test_page_is_self_contained():
    html = page()
    parser = Tags()
    parser.feed(html)
    assert not {"script", "link", "img", "iframe", "object"} & set(parser.tags)
    assert "src" not in parser.attrs and "href" not in parser.attrs
    assert "url(" not in html and "@import" not in html
    assert "default-src 'none'" in html                             # and the browser is told so too


# -- redaction --------------------------------------------------------------------------------------
def test_redacted_columns_are_shown_as_redacted():
    html = page()
    assert re.search(r"<th>notes</th><td><span class=\"redacted\">" + REDACTED + "</span>", html)
    # a redacted column that is somehow in `raw` is masked, never printed
    fields = raw_fields({"notes": "card 4111", "id": "C1"}, ["notes"])
    assert fields == [("id", "C1", False), ("notes", None, True)]
    leaked = page(rejects=[RejectSample("customer", 1, [sample(raw='{"notes":"card 4111","id":"C1"}')], redact=["notes"])])
    assert "card 4111" not in leaked and f'<span class="redacted">{REDACTED}</span>' in leaked


def test_loader_columns_sit_beside_the_row_not_in_it():
    fields = [name for name, _, _ in raw_fields(as_json(sample()["raw"]), [])]
    assert fields == ["country", "email", "id"]


def test_long_values_are_cut_with_their_length():
    html = page(rejects=[RejectSample("customer", 1, [sample(raw='{"notes":"%s"}' % ("x" * 5000))])])
    assert "x" * 160 in html and "x" * 161 not in html and "(5,000 characters)" in html


# -- chart ------------------------------------------------------------------------------------------
def test_chart_has_one_polyline_per_entity():
    model = build(ReportInput(mart_rows=shop_rows()))
    svg = chart_svg(model)
    lines = re.findall(r'<polyline[^>]*data-entity="([^"]+)"[^>]*stroke="([^"]+)"[^>]*points="([^"]*)"', svg)
    assert [(e, c) for e, c, _ in lines] == [("customer", PALETTE[0]), ("order", PALETTE[1])]
    assert all(len(points.split()) == 3 for _, _, points in lines)  # a point per run
    ys = [float(p.split(",")[1]) for p in lines[0][2].split()]
    assert ys[1] < ys[2] < ys[0]                                    # 20%, 40%, 30%: higher rate, higher on the page
    assert svg.count("<circle") == 6


def test_chart_keeps_the_newest_runs_and_skips_runs_without_an_entity():
    rows = [accounting(f"r{i:02}", f"2024-01-{i:02}", "a", 10, i % 3) for i in range(1, 31)]
    rows.append(accounting("r30", "2024-01-30", "b", 0, 0))        # nothing evaluated: no rate
    rows.append(accounting("r29", "2024-01-29", "b", 4, 1))
    model = build(ReportInput(mart_rows=rows, max_runs=12))
    assert [r.run_id for r in model.chart_runs] == [f"r{i:02}" for i in range(19, 31)]
    assert model.series["b"] == [None] * 10 + [0.25, None]
    svg = chart_svg(model)
    assert re.search(r'data-entity="b"[^>]*points="[\d.]+,[\d.]+"', svg)   # one point
    assert "the last 12 of 30 runs" in render_html(ReportInput(mart_rows=rows, max_runs=12))


@pytest.mark.parametrize("n", [1, 2, 200])
def test_chart_draws_any_number_of_runs(n):
    rows = [accounting(f"r{i}", f"2024-{1 + i // 28:02}-{1 + i % 28:02}", "a", 10, i % 4) for i in range(n)]
    svg = chart_svg(build(ReportInput(mart_rows=rows, max_runs=0)))
    assert svg.count("<polyline") == 1 and svg.count("<circle") == n
    assert len(re.findall(r'class="xlabel"', svg)) <= 11


# -- the baseline band and the flagged runs (issue 24), read from quality_drift's rows -------------
def drift(run_id, entity, metric, value, median=None, band=None, judged=True, out=False, rule="(entity)"):
    return {"entity": entity, "run_id": run_id, "metric": metric, "rule": rule, "metric_value": value,
            "baseline_median": median, "band": band, "judged": judged, "out_of_band": out}


def drift_history():
    """customer (a full entity: the drift's rate is the plotted rate): r1 not judged, r2 and r3
    judged, r3 out of band; order: the drift's rate is another (its batch's), volume out of band in r2."""
    rows = shop_rows()
    return rows, [
        drift("r1", "customer", "quarantine_rate", 0.2, judged=False),
        drift("r2", "customer", "quarantine_rate", 0.4, median=0.2, band=0.1),
        drift("r3", "customer", "quarantine_rate", 0.3, median=0.25, band=0.02, out=True),
        drift("r3", "customer", "rule", 3, median=1, band=1, out=True, rule="country_length"),
        drift("r2", "order", "quarantine_rate", 0.05, median=0.5, band=0.1),
        drift("r2", "order", "volume", 170, median=17, band=10, out=True),
    ]


def test_the_band_is_the_views_and_only_where_it_judges_the_plotted_rate():
    rows, drift_rows = drift_history()
    model = build(ReportInput(mart_rows=rows, drift_rows=drift_rows))
    assert model.bands == {"customer": [None, (0.2, pytest.approx(0.3)), (0.25, pytest.approx(0.27))]}
    assert model.flagged_runs == {"customer": {2: ["quarantine rate", "rule country_length"]}, "order": {1: ["volume"]}}
    # no quality_drift (an older project): no band, no ring, the chart as before
    plain = build(ReportInput(mart_rows=rows))
    assert plain.bands == {} and plain.flagged_runs == {}
    assert 'class="band"' not in chart_svg(plain) and 'class="flagged"' not in chart_svg(plain)


def test_the_chart_draws_the_band_under_the_line_and_rings_the_flagged_runs():
    rows, drift_rows = drift_history()
    model = build(ReportInput(mart_rows=rows, drift_rows=drift_rows))
    svg = chart_svg(model)
    (band,) = re.findall(r'<polygon class="band" data-entity="customer"[^>]*points="([^"]+)"', svg)
    points = [tuple(map(float, p.split(","))) for p in band.split()]
    assert len(points) == 4   # runs 2 and 3: upper edge left to right, lower edge back
    (x2, upper2), (x3, upper3), (x3b, lower3), (x2b, lower2) = points
    assert (x2, x3) == (x2b, x3b) and x2 < x3 and upper2 < lower2 and upper3 < lower3   # y grows downwards
    line = re.search(r'<polyline class="series" data-entity="customer"[^>]*points="([^"]+)"', svg).group(1)
    plotted = dict(tuple(map(float, p.split(","))) for p in line.split())
    # run 3's rate (0.3) is above its band (0.25 to 0.27): the flagged point sits over the band's top
    assert plotted[x3] < upper3
    # the band's edges are the view's numbers on the chart's scale: 0.2 -> 0.3 spans 5x 0.25 -> 0.27
    assert (lower2 - upper2) == pytest.approx(5 * (lower3 - upper3), rel=1e-2)
    assert svg.index('class="band"') < svg.index('class="series"')   # drawn first: under the lines
    assert re.findall(r'<circle class="flagged" data-entity="(\w+)"', svg) == ["customer", "order"]
    assert "out of band: quarantine rate, rule country_length" in svg
    # the text alternative says what the band and the rings show (a screen reader sees no colours)
    label = re.search(r'<svg class="chart"[^>]*aria-label="([^"]+)"', svg).group(1)
    assert "with the baseline band of customer" in label and "customer (run #3)" in label and "order (run #2)" in label
    assert "<title>customer: baseline band of the quarantine rate (quality_drift)</title>" in svg
    page = render_html(ReportInput(mart_rows=rows, drift_rows=drift_rows))
    assert "baseline band" in page and "out of band (quarantine rate, volume or a rule" in page


def test_a_band_wider_than_every_rate_stops_at_100_percent():
    # a volatile history: median 70 %, band 80 points; the rate itself never passes 100 %
    rows = [accounting("r1", "2024-01-01", "a", 10, 7), accounting("r2", "2024-01-02", "a", 10, 9)]
    model = build(ReportInput(mart_rows=rows, drift_rows=[drift("r2", "a", "quarantine_rate", 0.9, median=0.7, band=0.8)]))
    assert model.bands == {"a": [None, (0.7, 1.0)]}
    svg = chart_svg(model)
    ticks = re.findall(r'class="ytick"[^>]*>([^<]+)<', svg)
    assert ticks[-1] == "100%" and "150%" not in svg and "120%" not in svg, ticks


def test_the_bronze_columns_that_changed_are_listed_and_escaped():
    rows = [accounting("r1", "2024-01-01", "a", 10, 1)]
    changes = [{"source_name": "lab__readings", "column_name": "pressure_hpa", "change": "added",
                "type_before": None, "type_after": "INTEGER"},
               {"source_name": "lab__readings", "column_name": "<b>x</b>", "change": "retyped",
                "type_before": "VARCHAR", "type_after": "BIGINT"}]
    page = render_html(ReportInput(mart_rows=rows, bronze_columns=changes))
    assert "Bronze columns changed since the build before" in page
    assert ("<tr><td><code>lab__readings</code></td><td><code>pressure_hpa</code></td><td>added</td><td>–</td>"
            "<td>INTEGER</td></tr>") in page
    assert "&lt;b&gt;x&lt;/b&gt;" in page and "<b>x</b>" not in page
    assert "Bronze columns changed" not in render_html(ReportInput(mart_rows=rows))


def test_control_and_bidi_characters_are_shown_not_obeyed():
    """A column name with a right-to-left override (U+202E) reorders what a reader sees after it,
    an ESC or a zero-width space is drawn as nothing: the page writes each as a visible escape,
    as the CLI does (terminal.inert), in the rules, the samples and the bronze columns alike."""
    sneaky = "amount\u202edeliF\u200b\x1b[2J"
    rows = [accounting("r1", "2024-01-01", "a", 10, 1), rule("r1", "2024-01-01", "a", sneaky, "flag", 1)]
    rejects = [RejectSample("a", 1, [sample(key_values={sneaky: "x"}, _source_row_id=sneaky)])]
    changes = [{"source_name": "lab__readings", "column_name": sneaky, "change": "added",
                "type_before": None, "type_after": "INTEGER"}]
    html = render_html(ReportInput(mart_rows=rows, rejects=rejects, bronze_columns=changes))
    for ch in ("\u202e", "\u200b", "\x1b"):
        assert ch not in html, repr(ch)
    assert html.count("amount\\u202edeliF\\u200b\\x1b[2J") >= 3
