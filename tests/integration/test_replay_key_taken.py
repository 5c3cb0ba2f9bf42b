"""Issue 38, replay never gets a valid spec stuck: on an entity without dedupe, replay must not
publish a second row for a key another source row already publishes.

`reading` has no dedupe and one bronze relation. Source row r-1 delivers key K1 with a value the
range rule quarantines; a later load's r-2 delivers K1 clean and is published. The rule is then
relaxed and the entity replayed: r-1 passes now, but K1 is r-2's, and nothing decides between
two rows of one key without dedupe. Admitting r-1 would publish K1 twice (the next build stops
on `reading_key_unique`, for good) or replace r-2 (conservation stops on the lost delivery).
Replay keeps it quarantined with `(key_unique)` first in its rules, and the next builds pass.
A candidate whose key no other row holds (r-3) is admitted as before.
"""
from __future__ import annotations

import pytest

from .harness import ENGINES, engine_project, specs_folder

MODEL = """\
spec_version: 1
entities:
  reading:
    grain: one row per reading
    materialization: %(materialization)s
    key: [reading_id]
    fields:
      reading_id: {type: string, required: true}
      value: {type: int}
    quarantine: {retention: 365d}
"""
MAPPING = """\
mapping_version: 1
source: plant__readings
target: reading
key: {reading_id: {from: "$.id"}}
fields:
  value: {from: "$.value", transform: [to_int], quality: [{rule: range, max: %(max)s, on_fail: quarantine}]}
unmapped: ["$._load_id", "$._ingested_at", "$._source_row_id"]
"""
COLUMNS = ["id", "value", "_load_id", "_ingested_at", "_source_row_id"]
L1, L2 = ("l1", "2024-01-01 00:00:00"), ("l2", "2024-01-02 00:00:00")


def _specs(materialization: str, top: int) -> dict[str, str]:
    return {"entity_model.yaml": MODEL % {"materialization": materialization},
            "readings.yaml": MAPPING % {"max": top}}


@pytest.fixture(scope="module", params=[pytest.param(p, id=p) for p in ("incremental_by_key", "full")])
def materialization(request):
    return request.param


@pytest.fixture(scope="module", params=ENGINES)
def history(request, tmp_path_factory, materialization):
    tmp = tmp_path_factory.mktemp(f"key_taken_{request.param}")
    project = engine_project(request.param, tmp, request, specs_folder(tmp, _specs(materialization, 100)))
    seen = {}
    # build 1: r-1 (K1, 500) is quarantined, r-3 (K3, 700) too
    project.write_bronze("plant__readings", COLUMNS, [("K1", "500", *L1, "r-1"), ("K3", "700", *L1, "r-3")])
    assert project.compile() == 0
    project.dbt("build")
    # build 2: another source row publishes K1
    project.write_bronze("plant__readings", COLUMNS, [("K1", "50", *L2, "r-2")], append=True)
    project.dbt("build")
    seen["build 2"] = project.rows("select reading_id, value, _source_row_id from main.reading order by 1, 3")
    # the range relaxed, the entity replayed
    for name, text in _specs(materialization, 1000).items():
        (project.dir / "specs" / name).write_text(text)
    assert project.compile() == 0
    project.dbt("run-operation", "bloomery.replay", "--args", "{entity: reading}")
    seen["after replay"] = project.rows("select reading_id, value, _source_row_id from main.reading order by 1, 3")
    seen["rejects"] = project.rows("select _source_row_id, failed_rules, resolved_at from main.reading__reject "
                                   "order by _source_row_id")
    # two more builds, one with nothing new: every audit passes (dbt build would exit non-zero)
    seen["build 3"] = project.dbt("build").statuses
    project.write_bronze("plant__readings", COLUMNS, [("K4", "5", "l3", "2024-01-03 00:00:00", "r-4")], append=True)
    seen["build 4"] = project.dbt("build").statuses
    seen["final"] = project.rows("select reading_id, value, _source_row_id from main.reading order by 1, 3")
    return seen


def test_the_key_stays_with_the_row_that_holds_it(history):
    assert [tuple(r.values()) for r in history["build 2"]] == [("K1", 50, "r-2")]
    # r-3's key is free: admitted; r-1's is r-2's: not
    assert [tuple(r.values()) for r in history["after replay"]] == [("K1", 50, "r-2"), ("K3", 700, "r-3")]


def test_the_candidate_stays_quarantined_saying_why(history):
    rejects = {r["_source_row_id"]: r for r in history["rejects"]}
    assert rejects["r-1"]["resolved_at"] is None
    assert list(rejects["r-1"]["failed_rules"]) == ["(key_unique)"]
    assert rejects["r-3"]["resolved_at"] is not None


def test_the_next_builds_pass_with_every_row_in_place(history):
    for label in ("build 3", "build 4"):
        statuses = history[label]
        assert statuses["reading_key_unique"] == "pass", statuses
        assert statuses["reading_conservation"] == "pass", statuses
    assert [tuple(r.values()) for r in history["final"]] == [("K1", 50, "r-2"), ("K3", 700, "r-3"), ("K4", 5, "r-4")]
