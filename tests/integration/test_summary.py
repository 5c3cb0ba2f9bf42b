"""Issue 24, `bloomery summary`: the latest run per entity for CI, read from the mart and the
`quality_drift` view through dbt, with the dbt tests of the last invocation and --fail-on.

The history is test_drift.py's: eight steady incremental loads (the 8th judged, no drift), then a
load whose quarantined share jumps (the quarantine-rate drift WARNs), then the same latest run
tested again with `drift: {severity: error}` (an ERROR).
"""
from __future__ import annotations

import json

import pytest

from .harness import ENGINES, engine_project, summary
from .test_drift import DRIFT, model, run, specs


@pytest.fixture(params=ENGINES)
def project(request, tmp_path):
    project = engine_project(request.param, tmp_path, request, specs(tmp_path))
    assert project.compile() == 0
    return project


def test_summary_of_a_steady_history_then_a_drift(project):
    for n in range(1, 9):
        run(project, n)
    code, text = summary(project, "--format", "json", "--fail-on", "warn")
    doc = json.loads(text)
    assert code == 0, doc
    assert [e["entity"] for e in doc["entities"]] == ["reading"]
    assert doc["entities"][0]["drift"] == [] and doc["tests"] == [] and doc["worst"] == "ok", doc

    run(project, 9, not_int=40)
    code, text = summary(project, "--format", "json", "--fail-on", "warn")
    doc = json.loads(text)
    assert code == 4, doc
    (entity,) = doc["entities"]
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
    assert code == 0 and "drift WARN: quarantine_rate" in text and f"WARN {DRIFT} (2 failing)" in text, text

    # severity error: the drift test of the same latest run fails, and --fail-on error says so
    (project.dir / "specs" / "model.yaml").write_text(model("{severity: error}"))
    assert project.compile() == 0
    assert not project.dbt("test", "--select", "quality_drift", check=False).success
    code, text = summary(project, "--format", "json", "--fail-on", "error")
    doc = json.loads(text)
    assert code == 4, doc
    assert [(d["metric"], d["severity"]) for d in doc["entities"][0]["drift"]] == [("quarantine_rate", "error"),
                                                                                  ("rule", "error")]
    assert [(t["name"], t["status"], t["failures"]) for t in doc["tests"]] == [(DRIFT, "fail", 2)], doc["tests"]
