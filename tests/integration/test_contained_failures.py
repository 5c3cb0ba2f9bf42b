"""Issue 41: one entity's failure stays that entity's. Two entities that share nothing but the
project's quality nodes: when `reading__staged` fails (its bronze relation breaks at query time),
station is built, audited and tested as on any other run, its quality tests run (not skipped),
and the mart records station's snapshot of the run; only reading's nodes are skipped. And the
per-entity selector the docs give (`tag:bloomery_<entity>`, cautious indirect selection) lists
the entity's nodes and the project nodes it needs, never a node of the other entity.

The break is realistic and engine-neutral: reading's bronze table is replaced by a view over it
whose one bad row fails a cast when it is read, which only the staged pass does (bloomery's
start-of-run checks read bronze's columns, never its rows).
"""
from __future__ import annotations

import pytest

from .harness import ENGINES, engine_project

META = '"$._load_id", "$._ingested_at", "$._source_row_id"'
MODEL = """\
spec_version: 1
entities:
  station:
    grain: one row per station
    key: [station_id]
    fields: {station_id: {type: string}, elevation: {type: int}}
    quarantine: {retention: 30d, warn_above: 10%, error_above: 60%}
  reading:
    grain: one row per reading
    key: [reading_id]
    fields: {reading_id: {type: string}, value: {type: int}}
    quarantine: {retention: 30d}
"""
STATIONS = f"""\
mapping_version: 1
source: met__stations
target: station
key: {{station_id: {{from: "$.id"}}}}
fields: {{elevation: {{from: "$.elevation", transform: [to_int]}}}}
unmapped: [{META}]
"""
READINGS = f"""\
mapping_version: 1
source: met__readings
target: reading
key: {{reading_id: {{from: "$.id"}}}}
fields: {{value: {{from: "$.value", transform: [to_int]}}}}
unmapped: [{META}]
"""
COLUMNS = ["id", "{field}", "_load_id", "_ingested_at", "_source_row_id"]
# 2 of 10 stations held in quarantine: 20%, above warn (10%), below error (60%): a WARN to see
STATION_ROWS = [(f"st{i}", "high" if i in (3, 7) else str(100 * i), "l1", "2024-01-01 00:00:00", f"s{i}")
                for i in range(10)]
READING_ROWS = [(f"r{i}", str(i), "l1", "2024-01-01 00:00:00", f"q{i}") for i in range(6)]


def _columns(field: str) -> list[str]:
    return [c.format(field=field) for c in COLUMNS]


@pytest.fixture(params=ENGINES)
def project(request, tmp_path):
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "model.yaml").write_text(MODEL)
    (specs / "stations.yaml").write_text(STATIONS)
    (specs / "readings.yaml").write_text(READINGS)
    project = engine_project(request.param, tmp_path, request, specs)
    project.write_bronze("met__stations", _columns("elevation"), STATION_ROWS)
    project.write_bronze("met__readings", _columns("value"), READING_ROWS)
    assert project.compile() == 0
    return project


def _snapshots(project) -> dict[str, int]:
    return dict(project.query("select entity, count(distinct run_id) from main.mart_data_quality group by entity"))


def test_a_failed_entity_skips_only_its_own_nodes(project):
    first = project.dbt("build", check=False)
    assert first.statuses["station_quarantine_rate"] == "warn", first.statuses
    assert {s for n, s in first.statuses.items() if n != "station_quarantine_rate"} <= {"success", "pass"}, first.statuses
    assert _snapshots(project) == {"station": 1, "reading": 1}

    # reading's bronze breaks: a view over the loaded rows, one of which fails a cast when read
    project.execute("alter table main.met__readings rename to met__readings_loaded")
    project.execute("create view main.met__readings as select id, "
                    "case when id = 'r4' then cast(cast(value || 'x' as integer) as varchar) else value end as value, "
                    "_load_id, _ingested_at, _source_row_id from main.met__readings_loaded")
    second = project.dbt("build", check=False)
    assert not second.success
    statuses = second.statuses
    assert statuses["reading__staged"] == "error", statuses
    # every node of reading after its staged pass is skipped, and nothing else is
    skipped = {n for n, s in statuses.items() if s == "skipped"}
    assert skipped and all(n.startswith("reading") for n in skipped), skipped
    assert {"reading", "reading__reject", "reading__ledger", "reading__quality", "reading_quarantine_rate",
            "reading_drift"} <= skipped
    # station: built, audited, its quality snapshot taken and its quality tests run
    for node in ("station__staged", "station__reject", "station", "station__ledger", "station__quality",
                 "mart_data_quality"):
        assert statuses[node] == "success", (node, statuses)
    for test in ("station_ingestion_metadata", "station_conservation", "station_drift"):
        assert statuses[test] == "pass", (test, statuses)
    assert statuses["station_quarantine_rate"] == "warn", statuses
    # the mart holds station's snapshot of this run, and none of reading's
    assert _snapshots(project) == {"station": 2, "reading": 1}
    latest = project.query("select rows_evaluated, rows_quarantined from main.mart_data_quality "
                           "where entity = 'station' and rule = '(entity)' order by run_started_at desc")
    assert latest[0] == (10, 2)

    # bronze mended: reading builds again, and takes its snapshot
    project.execute("drop view main.met__readings")
    project.execute("alter table main.met__readings_loaded rename to met__readings")
    assert project.dbt("build", check=False).statuses["reading__quality"] == "success"
    assert _snapshots(project) == {"station": 3, "reading": 2}


CAUTIOUS = ("--indirect-selection", "cautious")


def test_the_entity_selector_lists_no_node_of_another_entity(project):
    listed = set(project.dbt("ls", "-s", "tag:bloomery_station", *CAUTIOUS, "--resource-type", "all",
                             "--output", "name", "--quiet").result)
    assert {"station__staged", "station", "station__reject", "station__ledger", "station__quality",
            "station_ingestion_metadata", "station_conservation", "station_quarantine_rate", "station_drift",
            "mart_data_quality"} <= listed, listed
    assert not {n for n in listed if n.startswith("reading")}, listed
    # and a build of it runs nothing of reading's, and snapshots station alone
    built = project.dbt("build", "-s", "tag:bloomery_station", *CAUTIOUS, check=False)
    assert set(built.statuses) == listed - {"met__stations", "met__readings"}, built.statuses
    assert _snapshots(project) == {"station": 1}
