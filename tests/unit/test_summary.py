"""`bloomery summary`'s pure part: rows -> summary, text and exit status (no dbt)."""
from __future__ import annotations

from decimal import Decimal

from bloomery.summary import FAILED, build, exit_status, to_text

ACCOUNTING = [
    # two runs of `order` (two mappings each: summed), one of `customer`
    {"entity": "order", "run_id": "r1", "run_date": "2026-12-01", "run_started_at": "2026-12-01 06:00:00",
     "rows_evaluated": 50, "rows_quarantined": 1, "rows_deduped": 0},
    {"entity": "order", "run_id": "r2", "run_date": "2026-12-02", "run_started_at": "2026-12-02 06:00:00",
     "rows_evaluated": 60, "rows_quarantined": 2, "rows_deduped": 1},
    {"entity": "order", "run_id": "r2", "run_date": "2026-12-02", "run_started_at": "2026-12-02 06:00:00",
     "rows_evaluated": Decimal(40), "rows_quarantined": 8, "rows_deduped": 0},
    {"entity": "customer", "run_id": "r2", "run_date": "2026-12-02", "run_started_at": None,
     "rows_evaluated": 0, "rows_quarantined": 0, "rows_deduped": 0},
]
DRIFT = [
    {"entity": "order", "metric": "quarantine_rate", "rule": "(entity)", "metric_value": 0.1,
     "baseline_median": 0.02, "band": 0.01, "out_of_band": True},
    {"entity": "order", "metric": "volume", "rule": "(entity)", "metric_value": Decimal("101"),
     "baseline_median": 100.0, "band": 10.0, "out_of_band": False},
    {"entity": "order", "metric": "rule", "rule": "amount_range", "metric_value": 30.0,
     "baseline_median": 3.0, "band": 10.0, "out_of_band": "true"},
]
RESULTS = {"results": [
    {"unique_id": "test.shop.order_drift.abc", "status": "warn", "failures": 2},
    {"unique_id": "test.shop.order_amount_range.def", "status": "pass", "failures": 0},
    {"unique_id": "model.shop.order", "status": "success"},
]}


def test_latest_run_per_entity_summed_over_mappings():
    s = build(ACCOUNTING, DRIFT)
    order = {e["entity"]: e for e in s["entities"]}["order"]
    assert (order["run_id"], order["rows_evaluated"], order["rows_quarantined"], order["rows_deduped"]) == \
        ("r2", 100, 10, 1)
    assert order["quarantine_rate"] == 0.1
    customer = {e["entity"]: e for e in s["entities"]}["customer"]
    assert customer["quarantine_rate"] is None and customer["drift"] == []
    assert [(d["metric"], d["rule"], d["value"], d["median"], d["band"]) for d in order["drift"]] == \
        [("quarantine_rate", None, 0.1, 0.02, 0.01), ("rule", "amount_range", 30.0, 3.0, 10.0)]
    assert s["tests"] == [] and s["tests_read"] is False and s["worst"] == "warn"


def test_exit_status_follows_fail_on():
    warn = build(ACCOUNTING, DRIFT, RESULTS)
    assert [(t["name"], t["status"], t["failures"]) for t in warn["tests"]] == \
        [("order_drift", "warn", 2)]
    assert (exit_status(warn, "never"), exit_status(warn, "warn"), exit_status(warn, "error")) == (0, FAILED, 0)
    error = build(ACCOUNTING, DRIFT, None, {"order": "error"})
    assert error["worst"] == "error" and exit_status(error, "error") == FAILED
    failed_test = build(ACCOUNTING, [], {"results": [{"unique_id": "test.p.x.1", "status": "fail", "failures": 3}]})
    assert failed_test["worst"] == "error" and exit_status(failed_test, "error") == FAILED
    clean = build(ACCOUNTING, [d for d in DRIFT if not d["out_of_band"] is True and d["out_of_band"] != "true"],
                  {"results": []})
    assert clean["worst"] == "ok" and exit_status(clean, "warn") == 0


def test_text():
    text = to_text(build(ACCOUNTING, DRIFT, RESULTS))
    assert "order: run r2 (2026-12-02 06:00:00): 100 evaluated, 10 quarantined (10.00%), 1 deduped" in text
    assert "drift WARN: quarantine_rate 10.00% (median 2.00%, band ±1.00%)" in text
    assert "drift WARN: rule amount_range 30 (median 3, band ±10)" in text
    assert "WARN order_drift (2 rows)" in text
    assert text.endswith("overall: warn\n")
    assert "no run in mart_data_quality yet" in to_text(build([], []))


def test_a_model_that_stopped_is_an_error_of_its_entity():
    """A `__staged` model stopped by a lost bronze column: the summary names it and its entity, with
    the first line of dbt's message (the fix), and it counts as an error for --fail-on."""
    results = {"results": [
        {"unique_id": "model.shop.order__staged", "status": "error",
         "message": "Compilation Error in model order__staged (models/bloomery/order__staged.sql)\n"
                    "  bloomery: entity order can not be judged: its bronze is missing a column.\n  - details"},
        {"unique_id": "model.shop.customer", "status": "success"},
        {"unique_id": "test.shop.order_bronze_schema.abc", "status": "warn", "failures": 1},
    ]}
    s = build(ACCOUNTING, [], results)
    assert s["errors"] == [{"name": "order__staged", "unique_id": "model.shop.order__staged", "entity": "order",
                            "status": "error", "severity": "error",
                            "message": "bloomery: entity order can not be judged: its bronze is missing a column."}]
    assert [(t["name"], t["entity"]) for t in s["tests"]] == [("order_bronze_schema", "order")]
    assert s["worst"] == "error"
    assert exit_status(s, "error") == FAILED
    assert "ERROR order__staged: bloomery: entity order can not be judged" in to_text(s)


def test_a_quarantine_rate_test_says_rows_and_percent_and_when_the_mart_is_older():
    accounting = [{"entity": "reading", "run_id": "r1", "run_date": "2024-01-01", "run_started_at": None,
                   "rows_evaluated": 21, "rows_quarantined": 3, "rows_deduped": 0}]
    limits = {"reading_quarantine_rate": {"warn": 1000, "error": 5000}}
    result = {"unique_id": "test.p.reading_quarantine_rate.1", "status": "warn", "failures": 3}
    text = to_text(build(accounting, [], {"results": [result]}, limits=limits))
    assert "WARN reading_quarantine_rate: 3 rows held in quarantine, 14.29% of 21 evaluated " \
           "(warn above 10%, error above 50%)" in text, text
    # a replay resolved one, then `dbt test` ran: the rows are the test's, the rate the mart's run
    text = to_text(build(accounting, [], {"results": [dict(result, failures=2)]}, limits=limits))
    assert "WARN reading_quarantine_rate: 2 rows held in quarantine now; the mart's latest run recorded " \
           "14.29% of 21 evaluated (warn above 10%, error above 50%)" in text, text
