"""Dedupe decides on the timestamp `_ingested_at` casts to, not on its bronze text, and a `unique`
rule under a time-bucket `partition_by` compares the rows of one bucket. Built for real on DuckDB
and PostgreSQL (and on Spark with `-m spark`).

'2024-01-10 23:00:00' and '2024-01-10T01:00:00' are one day's evening and morning, but as text the
morning sorts after the evening (' ' < 'T'): ordered by text, dedupe published the older delivery.
Offsets ('+05:00') are not tested here: DuckDB's and PostgreSQL's cast to timestamp drop them,
Spark's applies them, so the same text means two instants on two engines (the ingestion-metadata
audit, `first_seen` and the batch watermark share that cast).
"""
from __future__ import annotations

import pytest

from .harness import ENGINES, SPARK, engine_project, specs_folder

MODEL = """\
spec_version: 1
entities:
  reading:
    grain: one row per reading
    key: [reading_id]
    partition_by: ["days(taken_at)"]
    fields:
      reading_id: {type: string}
      taken_at: {type: timestamp}
      meter: {type: string}
      state: {type: string}
    dedupe: {keep: latest_by, field: _ingested_at, tie_break: [_load_id]}
    quarantine: {retention: 52w}
"""
MAPPING = """\
mapping_version: 1
source: grid__readings
target: reading
key: {reading_id: {from: "$.id"}}
fields:
  taken_at: {from: "$.at", transform: [{parse_ts: ISO8601}]}
  meter:
    from: "$.meter"
    quality:
      - {rule: unique, on_fail: flag}
  state:
    from: "$.state"
    quality:
      - {rule: in_set, values: [ok], on_fail: quarantine}
unmapped: ["$._load_id", "$._ingested_at", "$._source_row_id"]
"""
COLUMNS = ["id", "at", "meter", "state", "_load_id", "_ingested_at", "_source_row_id"]
EVENING, MORNING = "2024-01-10 23:00:00", "2024-01-10T01:00:00"   # morning > evening as text


@pytest.fixture(params=ENGINES + [SPARK])
def project(request, tmp_path):
    if request.param == "spark":
        pytest.importorskip("pyspark")
    specs = specs_folder(tmp_path, {"model.yaml": MODEL, "mapping.yaml": MAPPING})
    p = engine_project(request.param, tmp_path, request, specs)
    assert p.compile() == 0
    return p


def _published(project):
    return dict(project.query("select reading_id, _source_row_id from main.reading"))


def _flagged(project):
    return {r[0] for r in project.query("select reading_id, _quality_flags from main.reading") if list(r[1]) == ["meter_unique"]}


def test_the_later_instant_wins_whatever_its_spelling(project):
    # a full build ranks the bronze rows as they arrive (CTE `arrived`)
    first = [
        ("k1", "2024-03-01T08:00:00", "m-k1", "ok", "l1", EVENING, "r1-evening"),
        ("k1", "2024-03-01T08:00:00", "m-k1", "ok", "l2", MORNING, "r1-morning"),
        # quarantined now, replayed below once `late` is allowed
        ("k5", "2024-03-01T08:00:00", "m-k5", "late", "l1", MORNING, "r5-morning"),
        ("k6", "2024-03-01T08:00:00", "m-k6", "late", "l1", MORNING, "r6-morning"),
    ]
    project.write_bronze("grid__readings", COLUMNS, first)
    project.dbt("build")
    assert _published(project) == {"k1": "r1-evening"}

    # an incremental batch of an entity with a `unique` rule ranks its candidates after the
    # transforms (CTE `ranked`). The morning deliveries of k5 and k6 have aged out of bronze and
    # wait in the reject table.
    second = first[:2] + [
        ("k5", "2024-03-01T08:00:00", "m-k5", "ok", "l3", EVENING, "r5-evening"),
        ("k6", "2024-03-01T08:00:00", "m-k6", "late", "l3", EVENING, "r6-evening"),
        ("k8", "2024-03-01T08:00:00", "m-k8", "ok", "l3", "2024-01-12 23:00:00", "r8-evening"),
        ("k8", "2024-03-01T08:00:00", "m-k8", "ok", "l3", "2024-01-12T01:00:00", "r8-morning"),
    ]
    project.write_bronze("grid__readings", COLUMNS, second)
    project.dbt("build")
    assert _published(project) == {"k1": "r1-evening", "k5": "r5-evening", "k8": "r8-evening"}
    unresolved = {r[0] for r in project.query("select _source_row_id from main.reading__reject where resolved_at is null")}
    assert unresolved == {"r5-morning", "r6-morning", "r6-evening"}

    # replay: the contest against the incumbent (k5) and among rejects (k6) is the same order
    path = project.dir / "specs" / "mapping.yaml"
    path.write_text(path.read_text().replace("values: [ok]", "values: [ok, late]"))
    assert project.compile() == 0
    project.dbt("run-operation", "bloomery.replay", "--args", "{entity: reading}")
    assert _published(project) == {"k1": "r1-evening", "k5": "r5-evening", "k6": "r6-evening", "k8": "r8-evening"}
    rejects = {r[0]: (list(r[1]), r[2] is not None)
               for r in project.query("select _source_row_id, failed_rules, resolved_at from main.reading__reject")}
    assert rejects["r5-morning"] == (["(superseded)"], True)
    assert rejects["r6-morning"] == (["(superseded)"], True)
    assert rejects["r6-evening"][1] is True


def test_uncastable_ingested_at_sorts_last_then_by_its_text(project):
    """Such a row never reaches a published run (the ingestion-metadata audit stops it), but the
    staged verdicts still follow one documented order: castable first, then the text descending."""
    project.write_bronze("grid__readings", COLUMNS, [
        ("k1", "2024-03-01T08:00:00", "m1", "ok", "l1", "2024-01-10 01:00:00", "r1-castable"),
        ("k1", "2024-03-01T08:00:00", "m1", "ok", "l1", "not a time", "r1-text"),
        ("k2", "2024-03-01T08:00:00", "m2", "ok", "l1", "aaa", "r2-aaa"),
        ("k2", "2024-03-01T08:00:00", "m2", "ok", "l1", "zzz", "r2-zzz"),
    ])
    project.dbt("run", "--select", "reading__staged")
    routes = dict(project.query("select _source_row_id, _bloomery_route from main.reading__staged"))
    assert routes == {"r1-castable": "keep", "r1-text": "deduped", "r2-zzz": "keep", "r2-aaa": "deduped"}
    result = project.dbt("build", check=False)
    assert not result.success, "the ingestion-metadata audit blocks the uncastable rows"


def test_unique_under_a_day_bucket_compares_the_rows_of_one_day(project):
    project.write_bronze("grid__readings", COLUMNS, [
        ("a", "2024-03-01T08:00:00", "m1", "ok", "l1", "2024-03-02 00:00:00", "ra"),
        ("b", "2024-03-01T17:30:00", "m1", "ok", "l1", "2024-03-02 00:00:00", "rb"),   # same day as a
        ("c", "2024-03-01T08:00:00", "m2", "ok", "l1", "2024-03-02 00:00:00", "rc"),
        # the next day; ingested last, so the next run's watermark leaves a, b and c out of its batch
        ("d", "2024-03-02T08:00:00", "m2", "ok", "l1", "2024-03-02 06:00:00", "rd"),
    ])
    project.dbt("build")
    assert _flagged(project) == {"a", "b"}

    # an incremental batch re-judges the earlier row its value duplicates within the day (c: not
    # in the batch by itself, and taken at another time than g)
    project.write_bronze("grid__readings", COLUMNS, [
        ("g", "2024-03-01T12:00:00", "m2", "ok", "l2", "2024-03-03 00:00:00", "rg"),
    ], append=True)
    project.dbt("build")
    assert _flagged(project) == {"a", "b", "c", "g"}
