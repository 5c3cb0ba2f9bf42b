"""coverage and reconcile checks on DuckDB: flag warns, fail blocks; the mart counts reconcile misses."""
from __future__ import annotations

import pytest

from .harness import INTEGRATION, DuckProject

SPECS = INTEGRATION / "corpus" / "checks" / "specs"
META = ["_load_id", "_ingested_at", "_source_row_id"]
pytestmark = pytest.mark.duckdb

INVOICES = [("I1", "30.00"), ("I2", "10.00"), ("I3", "5.00"), ("I4", "7.00")]
LINES = [("I1", "1", "10.00"), ("I1", "2", "20.00"),      # I1 matches, two lines
         ("I2", "1", "10.01"),                            # I2 within 0.01 but not exact; one line
         ("I3", "1", "4.00"), ("I3", "2", "2.00"),        # I3 off by 1.00
         ("I9", "1", "1.00")]                             # I4 has no lines; I9 has no invoice


def _build(tmp_path):
    project = DuckProject(tmp_path, specs=SPECS)
    project.write_bronze("billing__invoices", ["id", "total"] + META,
                         [(i, t, "l1", "2024-01-01 00:00:00", f"inv-{i}") for i, t in INVOICES])
    project.write_bronze("billing__lines", ["invoice", "line", "amount"] + META,
                         [(i, n, a, "l1", "2024-01-01 00:00:00", f"line-{i}-{n}") for i, n, a in LINES])
    assert project.compile() == 0
    return project


def test_coverage_and_reconcile(tmp_path):
    project = _build(tmp_path)
    project.dbt("run")
    result = project.dbt("test", check=False)
    assert result.statuses["invoice_has_lines_coverage"] == "warn"          # I4: flag
    assert result.statuses["invoice_has_two_lines_coverage"] == "fail"      # I2, I4: fail
    assert result.statuses["totals_match_reconcile"] == "warn"
    assert result.statuses["totals_match_strict_reconcile"] == "fail"
    rows = {r["invoice_id"]: r for r in project.rows("select * from main.totals_match__reconcile")}
    assert set(rows) == {"I1", "I2", "I3", "I4", "I9"}, "keys from both sides"
    assert rows["I1"]["within_tolerance"] and rows["I2"]["within_tolerance"]
    assert not rows["I3"]["within_tolerance"] and str(rows["I3"]["difference"]) == "1.00"
    assert not rows["I4"]["within_tolerance"] and rows["I4"]["right_value"] is None, "one-sided key fails"
    assert not rows["I9"]["within_tolerance"] and rows["I9"]["left_value"] is None
    strict = {r["invoice_id"]: r["within_tolerance"] for r in project.rows("select * from main.totals_match_strict__reconcile")}
    assert strict["I1"] and not strict["I2"]


def test_fail_checks_block_and_the_mart_counts_reconcile_misses(tmp_path):
    project = _build(tmp_path)
    result = project.dbt("build", check=False)
    assert result.statuses["invoice_has_two_lines_coverage"] == "fail"
    # a fail check publishes nothing downstream: the snapshot of its left side waits for it
    assert result.statuses["invoice__quality"] == "skipped", "a fail check publishes nothing downstream"
    project.dbt("run")   # models only: what the mart would say once the data is fixed
    rows = {r["rule"]: r for r in project.rows("select * from main.mart_data_quality")}
    assert rows["totals_match"]["rows_failed"] == 3 and rows["totals_match"]["entity"] == "invoice"
    assert rows["totals_match_strict"]["rows_failed"] == 4 and rows["totals_match_strict"]["disposition"] == "fail"
