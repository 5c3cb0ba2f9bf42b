"""Replay says when held rows were resolved by a build rather than by itself (issue 41: after a
plan's backfill a replay reported `0 admitted` and nothing else). The note names the latest build
that resolved held rows and how many, unless a replay has re-judged rows since. Replays and builds
interleaved, as helper-20 wrote them (the counts a marker-less first version got wrong)."""
from __future__ import annotations

import re

import pytest

from .harness import DuckProject, specs_folder
from .test_plan_script import COLUMNS, MAPPING, ROWS, WIDENED
from .test_plan_script import MODEL as PLAN_MODEL

pytestmark = pytest.mark.duckdb

# the plan script's entity without its thresholds: the note, not the rate, is what is tested here
MODEL = PLAN_MODEL.replace(", warn_above: 5%, error_above: 15%", "")
assert MODEL != PLAN_MODEL


def replay(project) -> tuple[str, int]:
    """The replay's line in dbt's log, and the number of rows its note says a build resolved."""
    log = project.dir / "logs" / "dbt.log"
    before = log.stat().st_size if log.exists() else 0
    project.dbt("run-operation", "bloomery.replay", "--args", "{entity: reading}")
    line = re.findall(r"bloomery\.replay reading[^\n]*", log.read_bytes()[before:].decode("utf-8", "replace"))[-1]
    noted = re.search(r"; (\d+) held rows? had been resolved by the dbt build of ", line)
    return line, int(noted.group(1)) if noted else 0


def test_replay_names_the_rows_the_latest_build_resolved(tmp_path):
    project = DuckProject(tmp_path, specs_folder(tmp_path, {"model.yaml": MODEL, "readings.yaml": MAPPING}))
    project.write_bronze("lab__readings", COLUMNS, ROWS)   # s1, s2, s3 held
    assert project.compile() == 0
    project.dbt("build")
    line, noted = replay(project)
    assert noted == 0 and line.startswith("bloomery.replay reading: 0 admitted, 3 still failing"), line

    # the spec widens and a full refresh re-judges all of bronze: the build resolves the three
    (project.dir / "specs" / "readings.yaml").write_text(WIDENED)
    assert project.compile() == 0
    project.dbt("build", "--full-refresh")
    line, noted = replay(project)
    assert noted == 3 and "0 admitted, 0 still failing" in line, line
    assert line.endswith("(it keeps them now, or a newer delivery of the key came)"), line

    # a row held, then resolved by its fixed re-delivery: the latest resolving build is that one
    project.write_bronze("lab__readings", COLUMNS, [("r10", "z", "l2", "2024-01-02 00:00:00", "s10")], append=True)
    project.dbt("build")
    project.write_bronze("lab__readings", COLUMNS, [("r10", "a", "l3", "2024-01-03 00:00:00", "s10")], append=True)
    project.dbt("build")
    assert replay(project)[1] == 1

    # two rows held; the replay re-judges them (still failing): nothing a build resolved after it
    project.write_bronze("lab__readings", COLUMNS, [("r12", "z", "l4", "2024-01-04 00:00:00", "s12"),
                                                   ("r13", "z", "l4", "2024-01-04 00:00:00", "s13")], append=True)
    project.dbt("build")
    assert "2 still failing" in replay(project)[0]
    assert replay(project)[1] == 0, "the replay before re-judged rows after that build"
    project.write_bronze("lab__readings", COLUMNS, [("r12", "a", "l5", "2024-01-05 00:00:00", "s12")], append=True)
    project.dbt("build")
    line, noted = replay(project)
    assert noted == 1 and "1 still failing" in line, line
