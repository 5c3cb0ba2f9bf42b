"""Issue 23: the quarantine rate shows in dbt's own output. Each entity with `quarantine:` gets a
test `<entity>_quarantine_rate` (on `quality_quarantine_rate`) that dbt reports as PASS, WARN or
ERROR by the entity's `warn_above` / `error_above`. Its results are rows, as a dbt user reads them
(issue 41): the rows held in quarantine, so `failures` in run_results.json is their count, and
dbt's message names the threshold crossed in percent.

One bronze of 21 readings, 3 of them not integers: 3 / 21 = 14.2857...% of the entity's rows sit
in quarantine (14.29% as the summary prints it). The same bronze is built under several thresholds
(recompiled between builds; a `full` entity re-judges it and holds its rejects), so what changes is
only the verdict: below warn, between warn and error, above error, the defaults, and thresholds
on either side of the exact rate (the comparison is exact, on integers).
"""
from __future__ import annotations

import json

import pytest

from .harness import ENGINES, DuckProject, engine_project, summary

pytestmark = pytest.mark.dbt_artifacts   # run_results.json is read, by the tests and by `bloomery summary`

QUARANTINE = "{retention: 30d%s}"
MAPPING = """\
mapping_version: 1
source: lab__readings
target: reading
key: {reading_id: {from: "$.id"}}
fields: {value: {from: "$.value", transform: [to_int]}}
unmapped: ["$._load_id", "$._ingested_at", "$._source_row_id"]
"""
COLUMNS = ["id", "value", "_load_id", "_ingested_at", "_source_row_id"]
BAD = {"r03", "r10", "r17"}
ROWS = [(f"r{i:02d}", "n/a" if f"r{i:02d}" in BAD else str(i), "l1", "2024-01-01 00:00:00", f"s{i:02d}")
        for i in range(21)]
HELD = 3         # the rows held in quarantine: the test's results


def model(thresholds: str = "") -> str:
    return ("spec_version: 1\nentities:\n  reading:\n    grain: one row per reading\n    key: [reading_id]\n"
            "    fields: {reading_id: {type: string}, value: {type: int}}\n"
            f"    quarantine: {QUARANTINE % thresholds}\n")


def specs(tmp_path, thresholds: str = ""):
    root = tmp_path / "specs"
    root.mkdir(exist_ok=True)
    (root / "model.yaml").write_text(model(thresholds))
    (root / "readings.yaml").write_text(MAPPING)
    return root


def rebuild(project, thresholds: str, *args: str):
    """Recompile the project's spec with these thresholds and `dbt build`; return dbt's result and
    the quarantine-rate test's entry in run_results.json."""
    (project.dir / "specs" / "model.yaml").write_text(model(thresholds))
    assert project.compile() == 0
    result = project.dbt("build", *args, check=False)
    results = json.loads((project.dir / "target" / "run_results.json").read_text())["results"]
    entry = next(r for r in results if r["unique_id"].startswith("test.") and ".reading_quarantine_rate." in r["unique_id"])
    return result, entry


def _compiled_test(project) -> str:
    """The quarantine-rate test's query as dbt compiled it for the last build."""
    compiled = next((project.dir / "target" / "compiled").rglob("reading_quarantine_rate.sql"))
    return compiled.read_text()


@pytest.fixture(params=ENGINES)
def project(request, tmp_path):
    project = engine_project(request.param, tmp_path, request, specs(tmp_path))
    project.write_bronze("lab__readings", COLUMNS, ROWS)
    return project


def test_thresholds_give_pass_warn_and_error(project, capfd):
    # below warn: PASS, and nothing to report
    result, entry = rebuild(project, ", warn_above: 20%, error_above: 50%")
    assert result.success
    assert (entry["status"], entry["failures"]) == ("pass", 0)
    assert project.query("select count(*) from main.reading__reject where resolved_at is null") == [(3,)]
    # the rate the test judges is the one the mart recorded for the run
    assert project.query("select rows_quarantined, rows_evaluated from main.quality_quarantine_rate") == [(3, 21)]

    # between warn and error: WARN with the rate, and the build exits 0
    result, entry = rebuild(project, ", warn_above: 10%, error_above: 50%")
    assert result.success, "a WARN never fails the build"
    assert (entry["status"], entry["failures"]) == ("warn", HELD)
    assert entry["message"] == "Got 3 results, configured to warn if >0 and max(quarantined_above_10pct) = 1"
    # dbt's own line counts rows
    assert "WARN 3 reading_quarantine_rate" in capfd.readouterr().out
    # the test's results are the rows held in quarantine, each with the rate and the thresholds crossed
    rows = project.query(_compiled_test(project))
    assert sorted(r[3] for r in rows) == ["s03", "s10", "s17"]
    assert {tuple(str(v) for v in r[5:]) for r in rows} == {("3", "21", "14.29", "1", "0")}
    # and `bloomery summary` says it in rows and percent
    code, text = summary(project)
    assert ("WARN reading_quarantine_rate: 3 rows held in quarantine, 14.29% of 21 evaluated "
            "(warn above 10%, error above 50%)") in text, text

    # above error: ERROR, the build fails, and what it published stays published
    result, entry = rebuild(project, ", warn_above: 1%, error_above: 10%")
    assert not result.success, "error_above makes `dbt build` exit non-zero"
    assert (entry["status"], entry["failures"]) == ("fail", HELD)
    assert entry["message"] == "Got 3 results, configured to fail if >0 and max(quarantined_above_10pct) = 1"
    assert {s for n, s in result.statuses.items() if n != "reading_quarantine_rate"} <= {"success", "pass"}, result.statuses
    assert project.query("select count(*) from main.reading") == [(18,)]

    # a later `dbt test` on its own (another invocation, no snapshot of its own) judges the same tables
    tested = project.dbt("test", "--select", "reading_quarantine_rate", check=False)
    assert tested.statuses == {"reading_quarantine_rate": "fail"}


def test_the_comparison_is_exact_at_the_rate(project):
    # 14.2857...%: above 14.28%, not above 14.29%, on either threshold
    _, entry = rebuild(project, ", warn_above: 14.28%")
    assert (entry["status"], entry["failures"]) == ("warn", HELD)
    _, entry = rebuild(project, ", warn_above: 14.29%")
    assert (entry["status"], entry["failures"]) == ("pass", 0)
    result, entry = rebuild(project, ", warn_above: 14.29%, error_above: 14.29%")
    assert result.success and entry["status"] == "pass"
    result, entry = rebuild(project, ", warn_above: 14.28%, error_above: 14.28%")
    assert not result.success and (entry["status"], entry["failures"]) == ("fail", HELD)


@pytest.mark.duckdb
def test_defaults_warn_on_any_quarantined_row_and_never_fail(tmp_path):
    project = DuckProject(tmp_path, specs(tmp_path))
    clean = [(i, "1", *rest) for i, _, *rest in ROWS]
    project.write_bronze("lab__readings", COLUMNS, clean)
    result, entry = rebuild(project, "")
    assert result.success and (entry["status"], entry["failures"]) == ("pass", 0)
    # one row of 22 in quarantine: WARN, and the build exits 0
    project.write_bronze("lab__readings", COLUMNS, [("r21", "n/a", "l2", "2024-01-02 00:00:00", "s21")], append=True)
    result, entry = rebuild(project, "")
    assert result.success, "the default never fails a build"
    assert (entry["status"], entry["failures"]) == ("warn", 1)   # 1 / 22 held, above 0%
    assert entry["message"] == "Got 1 result, configured to warn if >0 and max(quarantined_above_0pct) = 1"
    # `100%` silences it
    result, entry = rebuild(project, ", warn_above: 100%")
    assert result.success and (entry["status"], entry["failures"]) == ("pass", 0)
