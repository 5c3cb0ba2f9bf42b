"""Issue 24, bronze schema changes: every build snapshots the columns of the bronze relations the
entities read (`quality_bronze_columns`), and the entity's drift test (`<entity>_drift`, one node for
its measures and its columns since issue 39) compares the two latest snapshots. On test_drift.py's entity (readings loaded incrementally), one build per case:

- steady builds (the first one included) report nothing;
- a column added to bronze: WARN (one row, `added`), in run_results.json and in the summary;
- the same column retyped, then dropped: WARN (`retyped`, then `lost`);
- a column the mapping reads dropped: the `__staged` model stops with the fix, run_results.json
  records the ERROR, and the summary reports it as an error of the entity (exit 4 with
  --fail-on error); the schema test reports the column `lost` beside it;
- `schema_changes: error` makes a column change an ERROR while drift only warns, and the reverse;
- `schema_changes: ignore` and `drift: {severity: ignore}` leave the entity without those tests.
"""
from __future__ import annotations

import json

import pytest

from .harness import ENGINES, engine_project, report, summary
from .test_drift import COLUMNS, STEADY, load, model, specs

pytestmark = pytest.mark.dbt_artifacts   # run_results.json is read, by the tests and by `bloomery summary`

TEST = "reading_drift"


@pytest.fixture(params=ENGINES)
def project(request, tmp_path):
    project = engine_project(request.param, tmp_path, request, specs(tmp_path))
    assert project.compile() == 0
    return project


def build(project) -> dict[str, dict]:
    project.dbt("build", check=False)
    results = json.loads((project.dir / "target" / "run_results.json").read_text())["results"]
    return {r["unique_id"].split(".")[2]: r for r in results}


def changes(project) -> set[tuple]:
    """The column rows the drift test's query returns now: (source, column, change, type before,
    type after). Its measures are not judged yet (fewer builds than min_history): every row it
    returns is a column's."""
    sql = (project.dir / "target" / "compiled").rglob(f"{TEST}.sql")
    rows = project.query(f"select metric, rule, source_name, column_name, change, type_before, type_after, blocking "
                         f"from ({next(sql).read_text()}) as t")
    assert all(r[0] == "bronze_column" and r[1] == f"{r[2]}.{r[3]}" and r[7] == 0 for r in rows), rows
    return {tuple(r[2:7]) for r in rows}


def test_a_column_added_retyped_and_dropped_warns_and_a_mapped_column_lost_stops(project):
    rows = load(1, **STEADY)
    project.write_bronze("lab__readings", COLUMNS, rows)
    for _ in range(2):   # the first build (no snapshot before it) and a steady one
        results = build(project)
        assert results[TEST]["status"] == "pass", results[TEST]
        assert results["reading"]["status"] == "success"

    # a column added: the loader now writes a `note` the mapping does not read
    project.write_bronze("lab__readings", COLUMNS + ["note"], [r + ("x",) for r in rows])
    results = build(project)
    assert (results[TEST]["status"], results[TEST]["failures"]) == ("warn", 1), results[TEST]
    assert {(c[0], c[1], c[2]) for c in changes(project)} == {("lab__readings", "note", "added")}
    assert results["reading"]["status"] == "success"   # nothing the entity reads changed
    code, text = summary(project, "--format", "json", "--fail-on", "warn")
    doc = json.loads(text)
    assert code == 4 and doc["worst"] == "warn", doc
    assert [(t["name"], t["entity"], t["status"]) for t in doc["tests"]] == [(TEST, "reading", "warn")], doc
    assert doc["errors"] == []
    # the summary says what changed, not only that the test warned (issue 41)
    (entity,) = doc["entities"]
    (added,) = entity["bronze_columns"]
    assert (added["source_name"], added["column_name"], added["change"], added["type_before"]) == \
        ("lab__readings", "note", "added", None) and added["type_after"], added
    code, text = summary(project)
    assert f"  bronze column added: lab__readings.note ({added['type_after']})" in text, text
    assert f"WARN {TEST} (1 row)" in text, text
    # and so does the report
    code, _ = report(project, project.dir / "report.html")
    page = (project.dir / "report.html").read_text(encoding="utf-8")
    assert code == 0 and "<td><code>lab__readings</code></td><td><code>note</code></td><td>added</td>" in page

    # steady again: the two latest snapshots agree
    assert build(project)[TEST]["status"] == "pass"

    # retyped, then dropped
    project.execute('alter table main."lab__readings" alter column "note" type integer using null')
    results = build(project)
    assert results[TEST]["status"] == "warn", results[TEST]
    ((source, column, change, before, after),) = changes(project)
    assert (source, column, change) == ("lab__readings", "note", "retyped")
    assert before != after and "int" in after, (before, after)
    project.execute('alter table main."lab__readings" drop column "note"')
    results = build(project)
    assert results[TEST]["status"] == "warn"
    assert {c[:3] for c in changes(project)} == {("lab__readings", "note", "lost")}
    assert "  bronze column lost: lab__readings.note (was " in summary(project)[1]

    # a column the mapping reads, gone: the staged model stops, naming the column and the fix
    project.execute('alter table main."lab__readings" drop column "unit"')
    results = build(project)
    staged = results["reading__staged"]
    assert staged["status"] == "error" and '"unit"' in staged["message"] and "Fix:" in staged["message"], staged
    assert results["reading"]["status"] == "skipped"
    # the drift test reads the entity's measures of this run too: it is skipped with the entity,
    # whose staged model's error names the column; the snapshot was taken all the same
    assert results[TEST]["status"] == "skipped"
    assert {c[:3] for c in changes(project)} == {("lab__readings", "unit", "lost")}
    code, text = summary(project, "--format", "json", "--fail-on", "error")
    doc = json.loads(text)
    assert code == 4 and doc["worst"] == "error", doc
    assert [(e["name"], e["entity"]) for e in doc["errors"]] == [("reading__staged", "reading")], doc
    assert "can not be judged" in doc["errors"][0]["message"]


def test_each_part_of_the_one_drift_test_keeps_its_own_severity(project):
    """The columns and the measures share one node: `schema_changes: error` makes a column change an
    ERROR while the measures only warn, and `drift: {severity: error}` leaves a column change a WARN."""
    rows = load(1, **STEADY)
    (project.dir / "specs" / "model.yaml").write_text(model() + "    schema_changes: error\n")
    assert project.compile() == 0
    project.write_bronze("lab__readings", COLUMNS, rows)
    assert build(project)[TEST]["status"] == "pass"
    project.write_bronze("lab__readings", COLUMNS + ["note"], [r + ("x",) for r in rows])
    results = build(project)
    assert (results[TEST]["status"], results[TEST]["failures"]) == ("fail", 1), results[TEST]
    assert results["reading"]["status"] == "success"   # the entity was published; the build exits 1

    (project.dir / "specs" / "model.yaml").write_text(model("{severity: error}"))
    assert project.compile() == 0
    project.write_bronze("lab__readings", COLUMNS + ["note", "memo"], [r + ("x", "y") for r in rows])
    results = build(project)
    assert (results[TEST]["status"], results[TEST]["failures"]) == ("warn", 1), results[TEST]
    assert "max(blocking) = 1" in (project.dir / "models" / "bloomery" / "mart_data_quality.yml").read_text()
    assert {c[:3] for c in changes(project)} == {("lab__readings", "memo", "added")}


def test_the_tests_can_be_switched_off_per_entity(project):
    (project.dir / "specs" / "model.yaml").write_text(
        model("{severity: ignore}") + "    schema_changes: ignore\n")
    assert project.compile() == 0
    generated = {p.name for p in (project.dir / "models" / "bloomery").iterdir()}
    assert not {"quality_drift.sql", "quality_bronze_columns.sql"} & generated, generated
    project.write_bronze("lab__readings", COLUMNS, load(1, **STEADY))
    results = build(project)
    assert results["reading"]["status"] == "success"
    assert not [n for n in results if "drift" in n or "bronze_schema" in n], sorted(results)
