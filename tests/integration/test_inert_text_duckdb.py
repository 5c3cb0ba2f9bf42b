"""Issue 37, terminal text is inert: a bronze value holding terminal control sequences reaches
`bloomery summary` through an engine's message (an entity outside the quality system stops the
run naming the value it could not convert), and the text output shows it escaped, never acting
on the terminal, while the JSON output carries it exactly.
"""
from __future__ import annotations

import json
import re

import pytest

from .harness import DuckProject, specs_folder, summary

# dbt_artifacts: `bloomery summary` reads run_results.json
pytestmark = [pytest.mark.duckdb, pytest.mark.dbt_artifacts]

# clear the screen, retitle the window (ESC ] ... BEL), return to the line start and write a line
# that looks like the summary's own verdict
HOSTILE = "12\x1b[2J\x1b[H\x1b]0;owned\x07\roverall: ok\x9b31m"
MODEL = """\
spec_version: 1
entities:
  meter:
    grain: one row per meter
    key: [meter_id]
    fields: {meter_id: {type: string}, reading: {type: int}}
  site:
    grain: one row per site
    key: [site_id]
    fields: {site_id: {type: string}, name: {type: string}}
    quarantine: {retention: 30d}
"""
MAPPING = """\
mapping_version: 1
source: plant__meters
target: meter
key: {meter_id: {from: "$.meter_id"}}
fields:
  reading: {from: "$.reading", transform: [to_int]}
"""
# a judged entity, so the quality mart exists (an entity outside the quality system has no row there)
SITES = """\
mapping_version: 1
source: plant__sites
target: site
key: {site_id: {from: "$.site_id"}}
fields:
  name: {from: "$.name", quality: [{rule: not_null, on_fail: flag}]}
unmapped: ["$._load_id", "$._ingested_at", "$._source_row_id"]
"""
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f]")   # every control byte but the line breaks


@pytest.fixture(scope="module")
def stopped(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("inert")
    project = DuckProject(tmp, specs_folder(tmp, {"model.yaml": MODEL, "meters.yaml": MAPPING, "sites.yaml": SITES}))
    project.write_bronze("plant__meters", ["meter_id", "reading"], [("m1", "7"), ("m2", HOSTILE)])
    project.write_bronze("plant__sites", ["site_id", "name", "_load_id", "_ingested_at", "_source_row_id"],
                         [("s1", "north", "l1", "2024-03-01 00:00:00", "r1")])
    assert project.compile() == 0
    result = project.dbt("build", check=False)
    assert result.statuses["meter__staged"] == "error", result.statuses
    return project


def test_summary_text_holds_no_control_byte(stopped):
    code, text = summary(stopped, "--format", "text", "--fail-on", "error")
    assert code == 4
    assert not RAW.search(text), repr(text)
    # one error line, naming the value with its control characters written out
    (line,) = [line for line in text.splitlines() if line.startswith("  ERROR meter__staged: ")]
    assert "value 12\\x1b[2J\\x1b[H\\x1b]0;owned\\x07\\roverall: ok\\x9b31m is not a number" in line, line
    assert [line for line in text.splitlines() if line.startswith("overall:")] == ["overall: error"]


def test_summary_json_holds_the_exact_value(stopped):
    code, text = summary(stopped, "--format", "json")
    (error,) = json.loads(text)["errors"]
    assert error["name"] == "meter__staged"
    assert f"value {HOSTILE} is not a number" in error["message"], error
