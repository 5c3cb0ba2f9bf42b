"""The report's x-axis is each run's start time when the mart carries one (`run_started_at`), and a
rule that fired in the run before and fired on no row in the latest shows as gone to zero."""
from __future__ import annotations

import datetime as dt
import re

from bloomery.report.model import ReportInput, build, order_runs
from bloomery.report.render import chart_svg, render_html


def accounting(run_id, started, entity="customer", evaluated=10, quarantined=1):
    row = {"entity": entity, "mapping": f"src->{entity}", "rule": "(entity)", "disposition": "(entity)",
           "run_id": run_id, "run_date": str(started)[:10], "rows_evaluated": evaluated, "rows_failed": 0,
           "rows_quarantined": quarantined, "rows_deduped": 0}
    if started is not None and len(str(started)) > 10:
        row["run_started_at"] = started
    return row


def rule(run_id, day, name, failed, entity="customer", disposition="quarantine"):
    return {"entity": entity, "mapping": f"src->{entity}", "rule": name, "disposition": disposition,
            "run_id": run_id, "run_date": day, "rows_evaluated": 0, "rows_failed": failed,
            "rows_quarantined": 0, "rows_deduped": 0}


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


# -- run time -----------------------------------------------------------------------------------------
def test_runs_of_one_day_are_ordered_by_their_start_time_not_as_stored():
    rows = [accounting("late", dt.datetime(2024, 5, 2, 17, 30, 5)), accounting("early", "2024-05-02 08:05:00"),
            accounting("noon", "2024-05-02T12:00:00"), accounting("before", dt.datetime(2024, 5, 1, 23, 59))]
    runs = order_runs(rows)
    assert [r.run_id for r in runs] == ["before", "early", "noon", "late"]
    assert [r.run_time for r in runs] == ["2024-05-01 23:59:00", "2024-05-02 08:05:00", "2024-05-02 12:00:00",
                                          "2024-05-02 17:30:05"]


def test_the_chart_labels_each_run_with_its_start_time():
    rows = [accounting("a", "2024-05-02 08:05:00"), accounting("b", "2024-05-02 17:30:00", quarantined=0)]
    svg = chart_svg(build(ReportInput(mart_rows=rows)))
    labels = re.findall(r'class="xtime"[^>]*>([^<]*)<', svg)
    assert labels == ["08:05", "17:30"]
    assert re.findall(r'class="xdate"[^>]*>([^<]*)<', svg) == ["2024-05-02", "2024-05-02"]
    assert "run #1 (2024-05-02 08:05 UTC, a)" in svg
    # a run that quarantined nothing is a point at zero, not a gap
    points = re.search(r'data-entity="customer"[^>]*points="([^"]*)"', svg).group(1).split()
    assert len(points) == 2 and "0.00% quarantined in run #2" in svg


def test_a_mart_without_run_times_keeps_dates_and_says_how_runs_of_a_day_are_ordered():
    rows = [accounting("a", "2024-05-02"), accounting("b", "2024-05-02")]
    model = build(ReportInput(mart_rows=rows))
    assert [r.run_time for r in model.runs] == ["", ""]
    svg = chart_svg(model)
    assert "xtime" not in svg and "run #1 (2024-05-02, a)" in svg
    html = render_html(ReportInput(mart_rows=rows))
    assert "Runs of one day are in the order the mart stores them" in html
    timed = render_html(ReportInput(mart_rows=[accounting("a", "2024-05-02 08:05:00")]))
    assert "Runs of one day are in the order the mart stores them" not in timed
    assert "labelled with the time each started (UTC)" in timed
    assert "latest run 2024-05-02 08:05 UTC" in text_of(timed)


# -- rules that went to zero ------------------------------------------------------------------------
def _two_runs():
    rows = []
    for run_id, started, fired in [("r1", "2024-05-02 08:00:00", {"country_length": 4, "email_pattern": 2, "never": 0}),
                                   ("r2", "2024-05-02 09:00:00", {"country_length": 0, "email_pattern": 1, "never": 0})]:
        rows.append(accounting(run_id, started))
        rows += [rule(run_id, started[:10], name, n) for name, n in fired.items()]
    return rows


def test_a_rule_that_went_to_zero_is_listed_as_such():
    model = build(ReportInput(mart_rows=_two_runs()))
    assert [(r.rule, r.rows, r.previous) for r in model.rules] == [("email_pattern", 1, 2)]
    assert [(r.rule, r.rows, r.previous) for r in model.went_to_zero] == [("country_length", 0, 4)]
    text = text_of(render_html(ReportInput(mart_rows=_two_runs())))
    assert "country_length quarantine 0 0.0% ▼ 4 to zero" in text
    assert "1 of 3 rules fired in the latest run; 1 went to zero since the run before." in text
    assert "never" not in text                     # zero in both runs: nothing to say


def test_went_to_zero_alone_still_shows_the_table():
    rows = [r for r in _two_runs() if r["rule"] != "email_pattern"]
    text = text_of(render_html(ReportInput(mart_rows=rows)))
    assert "No rule fired in the latest run." in text
    assert "country_length quarantine 0 0.0% ▼ 4 to zero" in text
