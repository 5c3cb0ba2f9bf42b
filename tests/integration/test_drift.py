"""Issue 24, quality over time: every judged entity gets a drift test over the mart's history
(`<entity>_drift`, on the `quality_drift` model, one node whatever the number of rules: issue 39),
which judges the latest run's measures (quarantine rate, volume, each rule's failures) against
the trailing runs and is WARN (or ERROR, when the spec says `drift: {severity: error}`) with one
row per measure out of band.

A history of incremental loads is built, one `dbt build` per load, each load 100 new readings of
which 2 are not integers (quarantined: the implicit coercible rule), 5 negative (a range rule,
flag) and 3 without a unit (a not_null rule, flag). Each load differs (other ids, values, which
rows are dirty). The first 7 runs have too little history to be judged; the 8th is judged and
steady. Then a load whose quarantined share jumps, one where only the range rule spikes, and one
a tenth of the usual size: each produces the expected WARN in run_results.json, failing on the
measures the case is about and on no other.
"""
from __future__ import annotations

import json
import random

import pytest

from .harness import ENGINES, engine_project, summary, summary_json

pytestmark = pytest.mark.dbt_artifacts   # run_results.json is read, by the tests and by `bloomery summary`

MAPPING = """\
mapping_version: 1
source: lab__readings
target: reading
key: {reading_id: {from: "$.id"}}
fields:
  value:
    from: "$.value"
    transform: [to_int]
    quality: [{rule: range, min: 0, on_fail: flag}]
  unit:
    from: "$.unit"
    quality: [{rule: not_null, on_fail: flag}]
unmapped: ["$._load_id", "$._ingested_at", "$._source_row_id"]
"""
COLUMNS = ["id", "value", "unit", "_load_id", "_ingested_at", "_source_row_id"]
STEADY = {"rows": 100, "not_int": 2, "negative": 5, "no_unit": 3}


def model(drift: str = "") -> str:
    # warn_above 100%: the quarantine-rate test (issue 23) stays quiet, so only drift speaks
    return ("spec_version: 1\nentities:\n  reading:\n    grain: one row per reading\n"
            "    materialization: incremental_by_key\n    key: [reading_id]\n"
            "    fields: {reading_id: {type: string}, value: {type: int}, unit: {type: string}}\n"
            "    quarantine: {retention: 30d, warn_above: 100%}\n" + (f"    drift: {drift}\n" if drift else ""))


def specs(tmp_path):
    root = tmp_path / "specs"
    root.mkdir(exist_ok=True)
    (root / "model.yaml").write_text(model())
    (root / "readings.yaml").write_text(MAPPING)
    return root


def load(n: int, rows: int, not_int: int, negative: int, no_unit: int) -> list[tuple]:
    """Load n: `rows` new readings, the dirty ones chosen at random (seeded by n)."""
    rnd = random.Random(n)
    dirty = rnd.sample(range(rows), not_int + negative + no_unit)
    bad, neg, nounit = set(dirty[:not_int]), set(dirty[not_int:not_int + negative]), set(dirty[not_int + negative:])
    out = []
    for i in range(rows):
        value = "n/a" if i in bad else str(-rnd.randint(1, 50) if i in neg else rnd.randint(0, 1000))
        out.append((f"l{n:02d}r{i:03d}", value, None if i in nounit else "mg", f"load{n:02d}",
                    f"2026-11-{n:02d} 06:00:00", f"l{n:02d}s{i:03d}"))
    return out


def drift_results(project) -> dict[str, tuple[str, int]]:
    """test name -> (status, failing rows) in run_results.json, for the drift tests."""
    results = json.loads((project.dir / "target" / "run_results.json").read_text())["results"]
    out = {}
    for r in results:
        name = r["unique_id"].split(".")[2]
        if r["unique_id"].startswith("test.") and "drift" in name:
            out[name] = (r["status"], r["failures"])
    return out


def out_of_band(project) -> list[tuple]:
    """The rows the drift test returns: the latest run's measures out of band (metric, rule)."""
    return sorted(project.query("select metric, rule from main.quality_drift where is_latest and out_of_band"))


def run(project, n: int, **shape) -> dict[str, tuple[str, int]]:
    project.write_bronze("lab__readings", COLUMNS, load(n, **dict(STEADY, **shape)), append=n > 1)
    result = project.dbt("build", check=False)
    statuses = drift_results(project)
    assert result.success, (n, statuses, result.statuses)
    return statuses


def drifted(project) -> tuple[int, list[tuple]]:
    """`bloomery summary --fail-on warn`: its exit status and the entity's measures out of band."""
    code, doc = summary_json(project, "--fail-on", "warn")
    (entity,) = doc["entities"]
    return code, [(d["metric"], d["rule"]) for d in entity["drift"]]


@pytest.fixture(params=ENGINES)
def project(request, tmp_path):
    project = engine_project(request.param, tmp_path, request, specs(tmp_path))
    assert project.compile() == 0
    return project


DRIFT = "reading_drift"
PASS = ("pass", 0)


def test_steady_history_then_a_jump_a_spike_and_a_small_load(project):
    for n in range(1, 9):
        statuses = run(project, n)
        # runs 1-7: fewer than min_history (7) earlier runs, nothing judged; run 8: judged, steady
        assert statuses == {DRIFT: PASS}, (n, statuses)
    judged = project.rows("select metric, rule, judged, baseline_runs, metric_value, baseline_median "
                          "from main.quality_drift where is_latest")
    assert {(r["metric"], r["baseline_runs"], r["judged"]) for r in judged} == \
        {("quarantine_rate", 7, True), ("volume", 7, True), ("rule", 7, True)}
    # an incremental entity: volume and rule failures are what the run added, not the running total;
    # `reading_id` and `unit` are read as text (no cast): no coercible rule, no measure that is always 0
    assert {(r["metric"], r["rule"]): r["metric_value"] for r in judged if r["metric"] != "quarantine_rate"} == \
        {("volume", "(entity)"): 100, ("rule", "value_range_min"): 5, ("rule", "unit_not_null"): 3,
         ("rule", "value_coercible"): 2}
    # the runs are ordered by their start: the latest is the last one built
    assert project.query("select count(distinct run_started_at) from main.mart_data_quality") == [(8,)]

    # 9: 40 of 100 readings not integers: the quarantine rate jumps, and the coercible rule that
    # diverts those rows; the test fails on those two measures alone, as the summary says
    assert drifted(project) == (0, [])
    code, doc = summary_json(project, "--fail-on", "warn")
    assert [e["entity"] for e in doc["entities"]] == ["reading"]
    assert doc["tests"] == [] and doc["worst"] == "ok", doc

    statuses = run(project, 9, not_int=40)
    assert statuses == {DRIFT: ("warn", 2)}, statuses
    assert out_of_band(project) == [("quarantine_rate", "(entity)"), ("rule", "value_coercible")]
    assert drifted(project) == (4, [("quarantine_rate", None), ("rule", "value_coercible")])
    summary_of_a_drift(project)

    # 10: only the range rule spikes (a flag rule: the quarantine rate is not what moves)
    statuses = run(project, 10, negative=60)
    assert statuses == {DRIFT: ("warn", 1)}, statuses
    assert out_of_band(project) == [("rule", "value_range_min")]
    assert drifted(project) == (4, [("rule", "value_range_min")])

    # 11: a tenth of the usual load
    statuses = run(project, 11, rows=10, not_int=0, negative=1, no_unit=0)
    assert statuses == {DRIFT: ("warn", 1)}, statuses
    assert out_of_band(project) == [("volume", "(entity)")]
    assert drifted(project) == (4, [("volume", None)])

    # severity error: the same latest run judged by a later `dbt test` is an ERROR, and dbt exits
    # non-zero; the failing rows are stored (dbt's store_failures), naming the measure
    (project.dir / "specs" / "model.yaml").write_text(model("{severity: error}"))
    assert project.compile() == 0
    tested = project.dbt("test", "--select", "quality_drift", check=False)
    statuses = drift_results(project)
    assert not tested.success
    assert statuses == {DRIFT: ("fail", 1)}, statuses
    assert project.query("select metric, rule from main_dbt_test__audit.reading_drift") == [("volume", "(entity)")]
    # and `bloomery summary --fail-on error` says so
    code, doc = summary_json(project, "--fail-on", "error")
    assert code == 4, doc
    assert [(d["metric"], d["severity"]) for d in doc["entities"][0]["drift"]] == [("volume", "error")], doc
    assert [(t["name"], t["status"], t["failures"]) for t in doc["tests"]] == [(DRIFT, "fail", 1)], doc["tests"]


def summary_of_a_drift(project):
    """Issue 24, `bloomery summary` on run 9 of the history above (it had its own history of the
    same runs until issue 40): the latest run per entity, read from the mart and `quality_drift`
    through dbt, the dbt tests of the last invocation, and --fail-on."""
    code, doc = summary_json(project, "--fail-on", "warn")
    assert code == 4, doc
    (entity,) = doc["entities"]
    assert entity["entity"] == "reading"
    mart = project.rows("select run_id, rows_evaluated, rows_quarantined, rows_deduped from main.mart_data_quality "
                        "where rule = '(entity)' order by run_started_at desc")[0]
    assert (entity["run_id"], entity["rows_evaluated"], entity["rows_quarantined"], entity["rows_deduped"]) == \
        (mart["run_id"], mart["rows_evaluated"], mart["rows_quarantined"], mart["rows_deduped"])
    assert entity["quarantine_rate"] == pytest.approx(mart["rows_quarantined"] / mart["rows_evaluated"], abs=1e-6)
    assert [(d["metric"], d["rule"], d["severity"]) for d in entity["drift"]] == \
        [("quarantine_rate", None, "warn"), ("rule", "value_coercible", "warn")], entity
    drift = entity["drift"][0]
    assert drift["value"] == pytest.approx(0.4, abs=0.01) and drift["median"] == pytest.approx(0.02, abs=0.005)
    assert drift["band"] > 0
    # one drift test, failing on the two measures out of band
    assert [(t["name"], t["status"], t["failures"]) for t in doc["tests"]] == [(DRIFT, "warn", 2)], doc["tests"]
    assert summary(project, "--fail-on", "error")[0] == 0
    assert summary(project)[0] == 0
    code, text = summary(project, "--format", "text", "--fail-on", "never")
    assert code == 0 and "drift WARN: quarantine_rate" in text and f"WARN {DRIFT} (2 rows)" in text, text


def test_min_history_is_a_knob(project):
    """With min_history 9, a jump on the 9th run (8 earlier runs) is not judged yet."""
    (project.dir / "specs" / "model.yaml").write_text(model("{window: 10, min_history: 9, sensitivity: 4.5, min_change: 25%}"))
    assert project.compile() == 0
    for n in range(1, 9):
        run(project, n)
    statuses = run(project, 9, not_int=40)
    assert statuses == {DRIFT: PASS}, statuses
    assert project.query("select distinct baseline_runs, judged from main.quality_drift where is_latest") == [(8, False)]


def test_a_mart_built_before_run_started_at_gains_the_column(project):
    """The mart's one deliberate schema change: a mart without `run_started_at` (built by an
    earlier version) gets it on the next build, NULL on its earlier snapshots, which order first."""
    run(project, 1)
    project.execute("drop view main.quality_drift")   # which reads the column (PostgreSQL keeps it)
    project.execute("alter table main.mart_data_quality drop column run_started_at")
    run(project, 2)
    assert project.query("select count(*), count(run_started_at) from main.mart_data_quality where rule = '(entity)'") \
        == [(2, 1)]
    assert project.query("select run_number, metric_value from main.quality_drift where metric = 'volume' "
                         "order by run_number") == [(1, 100), (2, 100)]
