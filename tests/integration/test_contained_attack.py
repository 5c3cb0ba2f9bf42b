"""Attacks on issue 41 (each entity's counts a view `<entity>__quality` whose post-hook appends to
`mart_data_quality`): names, a mart built by an earlier release, containment under selectors and
commands users run, and the counts of one run against the view and the previous design's meaning.

Two small entities as in test_contained_failures: station (quarantine, 2 of 10 rows rejected) and
reading (6 clean rows), plus variants built per test."""
from __future__ import annotations

import contextlib
import io

import pytest

from bloomery.cli import main as bloomery_main

from .harness import ENGINES, DuckProject, engine_project, specs_folder
# the two entities of test_contained_failures, and their bronze
from .test_contained_failures import META, MODEL, READING_ROWS, READINGS, STATION_ROWS, STATIONS, _columns

MART_COLUMNS = ["entity", "mapping", "rule", "disposition", "run_id", "run_date", "rows_evaluated", "rows_failed",
                "rows_quarantined", "rows_deduped", "run_day", "run_week", "run_month", "run_quarter", "run_year",
                "run_started_at"]
CAUTIOUS = ("--indirect-selection", "cautious")


def _project(engine, tmp_path, request, model=MODEL, files=None):
    specs = specs_folder(tmp_path, {"model.yaml": model, "stations.yaml": STATIONS, "readings.yaml": READINGS,
                                    **(files or {})})
    project = engine_project(engine, tmp_path, request, specs)
    project.write_bronze("met__stations", _columns("elevation"), STATION_ROWS)
    project.write_bronze("met__readings", _columns("value"), READING_ROWS)
    return project


@pytest.fixture(params=ENGINES)
def project(request, tmp_path):
    project = _project(request.param, tmp_path, request)
    assert project.compile() == 0
    return project


@pytest.fixture
def duck(request, tmp_path):
    project = _project("duckdb", tmp_path, request)
    assert project.compile() == 0
    return project


def _break_readings(project):
    """reading's bronze: a view whose one bad row fails a cast when read (only the staged pass reads rows)."""
    project.execute("alter table main.met__readings rename to met__readings_loaded")
    project.execute("create view main.met__readings as select id, "
                    "case when id = 'r4' then cast(cast(value || 'x' as integer) as varchar) else value end as value, "
                    "_load_id, _ingested_at, _source_row_id from main.met__readings_loaded")


def _mend_readings(project):
    project.execute("drop view main.met__readings")
    project.execute("alter table main.met__readings_loaded rename to met__readings")


def _snapshots(project) -> dict[str, int]:
    return dict(project.query("select entity, count(distinct run_id) from main.mart_data_quality group by entity"))


def _latest(project, entity: str) -> list[tuple]:
    """The entity's rows of its latest snapshot, in the view's columns."""
    return sorted(project.query(
        "select entity, mapping, rule, disposition, rows_evaluated, rows_failed, rows_quarantined, rows_deduped "
        "from main.mart_data_quality m where entity = %s and run_started_at = (select max(run_started_at) "
        "from main.mart_data_quality where entity = %s)".replace("%s", f"'{entity}'")))


def _view(project, entity: str) -> list[tuple]:
    return sorted(project.query(
        "select entity, mapping, rule, disposition, rows_evaluated, rows_failed, rows_quarantined, rows_deduped "
        f"from main.{entity}__quality"))


def _compile_errors(tmp_path, files: dict[str, str]) -> tuple[int, str]:
    specs = specs_folder(tmp_path, files)
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(err):
        code = bloomery_main(["compile", "--specs", str(specs), "--out", str(tmp_path / "out")])
    return code, err.getvalue()


def _entity(name: str) -> str:
    return (f"  {name}:\n    grain: one row per {name}\n    key: [k]\n"
            "    fields: {k: {type: string}, v: {type: int}}\n    quarantine: {retention: 30d}\n")


def _mapping(name: str, source: str) -> str:
    return (f"mapping_version: 1\nsource: {source}\ntarget: {name}\nkey: {{k: {{from: \"$.id\"}}}}\n"
            f"fields: {{v: {{from: \"$.v\", transform: [to_int]}}}}\nunmapped: [{META}]\n")


# -- 1. names ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("names, generated", [
    (["x", "x__quality"], "`x__quality` would be generated twice"),
    (["mart_data_quality"], "`mart_data_quality` would be generated twice"),
    (["a" * 51], "is 64 bytes long"),
])
def test_a_name_bloomery_generates_is_refused_at_compile(tmp_path, names, generated):
    files = {"model.yaml": "spec_version: 1\nentities:\n" + "".join(_entity(n) for n in names)}
    files.update({f"m{i}.yaml": _mapping(n, f"src__t{i}") for i, n in enumerate(names)})
    code, said = _compile_errors(tmp_path, files)
    assert code == 1, said
    assert generated in said and "specs/model.yaml:" in said and "entities." in said, said
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").rglob("*.sql"))


@pytest.mark.duckdb
def test_the_longest_entity_name_fits_its_quality_view(tmp_path, request):
    """50 bytes: `<entity>__quality` (60) and every generated relation fit PostgreSQL's 63."""
    name = "s" * 50
    project = _project("duckdb", tmp_path, request,
                       model=MODEL.replace("  station:", f"  {name}:"),
                       files={"stations.yaml": STATIONS.replace("target: station", f"target: {name}")})
    assert project.compile() == 0
    built = project.dbt("build", check=False)
    assert built.statuses[f"{name}__quality"] == "success", built.statuses
    assert _snapshots(project) == {name: 1, "reading": 1}


@pytest.mark.duckdb
@pytest.mark.parametrize("name", ["quality", "run_id", "rows_failed"])
def test_an_entity_named_like_the_quality_nodes_or_columns_builds_and_counts(tmp_path, request, name):
    """`quality` makes `quality__quality` and the tests `quality_quarantine_rate` / `quality_drift`,
    which are also the names of two package models; `run_id` / `rows_failed` are mart columns."""
    project = _project("duckdb", tmp_path, request,
                       model=MODEL.replace("  station:", f"  {name}:"),
                       files={"stations.yaml": STATIONS.replace("target: station", f"target: {name}")})
    assert project.compile() == 0
    built = project.dbt("build", check=False)
    assert built.statuses.get(f"{name}__quality") == "success", built.statuses
    assert built.statuses.get(f"{name}_quarantine_rate") == "warn", built.statuses
    assert (name, "(entity)", 10, 2) in project.query(
        "select entity, rule, rows_evaluated, rows_quarantined from main.mart_data_quality")


# -- 2. history -------------------------------------------------------------------------------------

def _old_mart(project, with_started: bool):
    """The mart as a release before issue 41 left it: a table, two snapshots of one earlier run."""
    timestamp = "timestamp"
    cols = ", ".join(f"{c} {'varchar' if project.engine == 'duckdb' else 'text'}" if c in (
        "entity", "mapping", "rule", "disposition", "run_id") else f"{c} bigint" if c.startswith("rows_")
        else f"{c} {timestamp}" if c == "run_started_at" else f"{c} date"
        for c in MART_COLUMNS if with_started or c != "run_started_at")
    project.execute(f"create table main.mart_data_quality ({cols})")
    started = ", timestamp '2024-01-01 06:00:00'" if with_started else ""
    for entity, evaluated in (("station", 9), ("reading", 5)):
        project.execute(
            f"insert into main.mart_data_quality values ('{entity}', 'x->{entity}', '(entity)', '(entity)', 'old-run', "
            "date '2024-01-01', " + f"{evaluated}, 0, 1, 0, " + ", ".join(["date '2024-01-01'"] * 5) + started + ")")


@pytest.mark.parametrize("with_started", [True, False], ids=["with_run_started_at", "without_run_started_at"])
def test_a_mart_of_an_earlier_release_keeps_its_rows(project, with_started):
    _old_mart(project, with_started)
    project.dbt("build", check=False)
    cols = [r[0] for r in project.query(
        "select column_name from information_schema.columns where table_name = 'mart_data_quality' "
        "and table_schema = 'main' order by ordinal_position")]
    assert cols == MART_COLUMNS
    old = project.query("select entity, rows_evaluated, run_started_at from main.mart_data_quality "
                        "where run_id = 'old-run' order by entity")
    assert [r[:2] for r in old] == [("reading", 5), ("station", 9)]
    assert all((r[2] is None) != with_started for r in old), old
    assert _snapshots(project) == {"station": 2, "reading": 2}
    new = project.query("select count(*) from main.mart_data_quality where run_id <> 'old-run' and run_started_at is null")
    assert new == [(0,)]


@pytest.mark.duckdb
@pytest.mark.parametrize("selector", ["station__staged+"])
def test_a_downstream_selector_on_a_mart_without_run_started_at(duck, selector):
    """`-s station__staged+` selected the mart (downstream of every entity) before issue 41, so its
    pre-hook added `run_started_at`; now the mart is a parent of station__quality, not selected."""
    duck.dbt("build", check=False)
    _old_mart_rows = duck.query("select count(*) from main.mart_data_quality")[0][0]
    duck.execute("alter table main.mart_data_quality drop column run_started_at")
    built = duck.dbt("build", "-s", selector, check=False)
    assert built.statuses.get("station__quality") == "success", built.statuses
    assert duck.query("select count(*) from main.mart_data_quality")[0][0] > _old_mart_rows


@pytest.mark.duckdb
def test_a_downstream_selector_on_a_fresh_warehouse(duck):
    """Before issue 41 the mart was downstream of `station__staged`: `dbt build -s station__staged+`
    on an empty warehouse built station and recorded its snapshot."""
    built = duck.dbt("build", "-s", "station__staged+", check=False)
    assert built.statuses.get("station__quality") == "success", built.statuses
    assert _snapshots(duck) == {"station": 1}


# -- 3. containment ---------------------------------------------------------------------------------

def test_an_entity_failing_on_its_first_build(project):
    _break_readings(project)
    first = project.dbt("build", check=False)
    assert first.statuses["reading__staged"] == "error", first.statuses
    assert first.statuses["station__quality"] == "success", first.statuses
    assert first.statuses["mart_data_quality"] == "success", first.statuses
    assert first.statuses["station_drift"] == "pass", first.statuses
    assert _snapshots(project) == {"station": 1}
    _mend_readings(project)
    second = project.dbt("build", check=False)
    assert second.statuses["reading__quality"] == "success", second.statuses
    assert _snapshots(project) == {"station": 2, "reading": 1}


def test_dbt_test_alone_after_a_build(project):
    project.dbt("build", check=False)
    tested = project.dbt("test", check=False)
    assert tested.statuses["station_quarantine_rate"] == "warn", tested.statuses
    for test in ("station_drift", "reading_drift", "reading_quarantine_rate", "station_conservation"):
        assert tested.statuses[test] == "pass", (test, tested.statuses)
    assert _snapshots(project) == {"station": 1, "reading": 1}      # a test takes no snapshot


def test_dbt_test_after_the_entity_alone_is_rebuilt(project):
    """PostgreSQL drops a view with the table it reads when dbt replaces that table (drop ... cascade
    of the backup): `dbt build -s station` leaves no station__quality; the tests on it still run."""
    project.dbt("build", check=False)
    project.dbt("build", "-s", "station", "station__reject", check=False)
    tested = project.dbt("test", "-s", "tag:bloomery_station", check=False)
    assert tested.statuses["station_quarantine_rate"] == "warn", tested.statuses
    assert tested.statuses["station_drift"] == "pass", tested.statuses
    # and the next build takes station's snapshot again
    again = project.dbt("build", "-s", "tag:bloomery_station", *CAUTIOUS, check=False)
    assert again.statuses["station__quality"] == "success", again.statuses
    assert _snapshots(project) == {"station": 2, "reading": 1}


def test_full_refresh_keeps_the_history(project):
    project.dbt("build", check=False)
    first = project.query("select * from main.mart_data_quality order by entity, rule")
    refreshed = project.dbt("build", "--full-refresh", check=False)
    assert refreshed.statuses["station__quality"] == "success", refreshed.statuses
    after = project.query("select * from main.mart_data_quality order by entity, rule")
    run = MART_COLUMNS.index("run_id")
    first_run = first[0][run]
    assert [r for r in after if r[run] == first_run] == first
    assert _snapshots(project) == {"station": 2, "reading": 2}


def test_the_entity_selector_with_cautious_selection_records_only_its_entity(project):
    project.dbt("build", check=False)
    _break_readings(project)
    built = project.dbt("build", "-s", "tag:bloomery_station", *CAUTIOUS, check=False)
    assert built.success, built.statuses
    assert _snapshots(project) == {"station": 2, "reading": 1}


@pytest.mark.duckdb
def test_threads_append_one_snapshot_per_entity(tmp_path, request):
    """Six entities' __quality views built at once (threads 4): each appends its rows once."""
    names = [f"e{i}" for i in range(6)]
    model = "spec_version: 1\nentities:\n" + "".join(_entity(n) for n in names)
    files = {f"m{i}.yaml": _mapping(n, f"src__t{i}") for i, n in enumerate(names)}
    project = engine_project("duckdb", tmp_path, request, specs_folder(tmp_path, {"model.yaml": model, **files}))
    for i in range(6):
        project.write_bronze(f"src__t{i}", ["id", "v", "_load_id", "_ingested_at", "_source_row_id"],
                             [(f"k{j}", "bad" if j < i else str(j), "l1", "2024-01-01 00:00:00", f"s{j}") for j in range(8)])
    assert project.compile() == 0
    for _ in range(2):
        built = project.dbt("build", "--threads", "4", check=False)
        assert all(built.statuses[f"{n}__quality"] == "success" for n in names), built.statuses
    counts = project.query("select entity, count(distinct run_id), count(*), max(rows_quarantined), max(rows_evaluated) "
                           "from main.mart_data_quality where rule = '(entity)' group by entity order by entity")
    assert counts == [(f"e{i}", 2, 2, i, 8) for i in range(6)]


RECONCILED = MODEL.replace("fields: {reading_id: {type: string}, value: {type: int}}",
                           "fields: {reading_id: {type: string}, value: {type: int}, station_id: {type: string}}") + """\
reconcile:
  - {name: readings_per_station, left: "count(reading.reading_id) by station_id", right: "count(station.station_id) by station_id", tolerance: "0", on_fail: flag}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_a_reconcile_check_is_counted_on_its_left_entity_only(engine, tmp_path, request):
    project = _project(engine, tmp_path, request, model=RECONCILED, files={"readings.yaml": READINGS.replace(
        'fields: {value: {from: "$.value", transform: [to_int]}}',
        'fields: {value: {from: "$.value", transform: [to_int]}, station_id: {from: "$.station"}}')})
    project.write_bronze("met__readings", ["id", "value", "station", "_load_id", "_ingested_at", "_source_row_id"],
                         [(f"r{i}", str(i), f"st{i}", "l1", "2024-01-01 00:00:00", f"q{i}") for i in range(6)])
    assert project.compile() == 0
    built = project.dbt("build", check=False)
    assert built.statuses["reading__quality"] == "success", built.statuses
    failed = project.query("select count(*) from main.readings_per_station__reconcile where not within_tolerance")[0][0]
    assert failed > 0
    rows = project.query("select entity, rows_failed from main.mart_data_quality where rule = 'readings_per_station'")
    assert rows == [("reading", failed)]
    assert _latest(project, "reading") == _view(project, "reading")
    # the right side's failure: the left's snapshot waits for the check (documented); the right
    # side's own snapshot does not wait for the left
    _break_readings(project)
    second = project.dbt("build", check=False)
    assert second.statuses["station__quality"] == "success", second.statuses
    assert second.statuses["reading__quality"] == "skipped", second.statuses
    assert _snapshots(project) == {"station": 2, "reading": 1}


# -- 4. counts --------------------------------------------------------------------------------------

DEDUPED = MODEL.replace("    quarantine: {retention: 30d, warn_above",
                        "    dedupe: {keep: latest_by, field: _ingested_at, tie_break: [_load_id]}\n"
                        "    quarantine: {retention: 30d, warn_above")


@pytest.mark.parametrize("engine", ENGINES)
def test_the_snapshot_is_the_view_and_the_previous_design_counts(engine, tmp_path, request):
    project = _project(engine, tmp_path, request, model=DEDUPED)
    assert project.compile() == 0
    # a later delivery of st1: the first loses the dedupe contest
    project.write_bronze("met__stations", _columns("elevation"),
                         [("st1", "100", "l2", "2024-01-02 00:00:00", "s10")], append=True)
    project.dbt("build", check=False)
    for entity in ("station", "reading"):
        assert _latest(project, entity) == _view(project, entity), entity
    station = {r[2]: r for r in _view(project, "station")}
    kept = project.query("select count(*) from main.station")[0][0]
    open_rejects = project.query("select count(*) from main.station__reject where resolved_at is null")[0][0]
    deduped = project.query("select count(*) from main.station__ledger where route = 'deduped'")[0][0]
    assert station["(entity)"][4:] == (kept + open_rejects, 0, open_rejects, deduped)
    assert (kept, open_rejects, deduped) == (8, 2, 1)
    # the rows add up across the run: one accounting row per entity and mapping
    assert project.query("select count(*) from main.mart_data_quality where rule = '(entity)'") == [(2,)]
