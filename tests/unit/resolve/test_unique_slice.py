"""A `unique` rule's slice, as the macros receive it: each partition_by column with the time bucket
it is compared by (tests/integration/test_dedupe_typed.py builds it for real)."""
from __future__ import annotations

from bloomery.resolve import check_project

MODEL = """\
spec_version: 1
entities:
  reading:
    grain: one row per reading
    key: [reading_id]
    partition_by: ["years(taken_on)", " hours(taken_at) ", site]
    fields:
      reading_id: {type: string}
      taken_on: {type: date}
      taken_at: {type: timestamp}
      site: {type: string}
      meter: {type: string}
    quarantine: {retention: 30d}
"""
MAPPING = """\
mapping_version: 1
source: grid__readings
target: reading
key: {reading_id: {from: "$.id"}}
fields:
  taken_on: {from: "$.on", transform: [{parse_date: ISO8601}]}
  taken_at: {from: "$.at", transform: [{parse_ts: ISO8601}]}
  site: {from: "$.site"}
  meter:
    from: "$.meter"
    quality:
      - {rule: unique, on_fail: flag}
unmapped: ["$._load_id", "$._ingested_at", "$._source_row_id"]
"""


def test_the_slice_carries_each_partition_column_and_its_bucket(tmp_path):
    (tmp_path / "model.yaml").write_text(MODEL)
    (tmp_path / "mapping.yaml").write_text(MAPPING)
    project = check_project(tmp_path)
    assert project.entities["reading"].partition_by == ("taken_on", "taken_at", "site")
    rule = next(r for r in project.entities["reading"].rules if r.kind == "unique")
    assert list(rule.slice) == [{"column": "taken_on", "bucket": "year"},
                             {"column": "taken_at", "bucket": "hour"},
                             {"column": "site", "bucket": None}]
