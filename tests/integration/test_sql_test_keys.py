"""Issue 37, no SQL from a spec unless the project says so: a user's test in the spec
(`tests:` / `data_tests:`) passes its config and arguments to dbt, and dbt writes some of them
into the test's query as they stand (`where`, `fail_calc`, `warn_if`, `error_if`; the arguments
of a test that is not known to quote them). `bloomery compile` refuses such a key, located and
naming the opt-in, unless the entity model lists it under `sql_test_keys` (this spec key carries
SQL); then it works as dbt's own `where`, and its text is still data to dbt's Jinja.

On DuckDB and PostgreSQL, one project each: the refused compile writes nothing and the canary
relation stays; the opted-in build filters as `where` does and runs none of the Jinja in it.
"""
from __future__ import annotations

import contextlib
import io
import re

import pytest
import yaml

from bloomery.cli import main as bloomery_main

from .harness import ENGINES, engine_project, specs_folder

# ends the test's query early, drops the canary and commits, then selects a passing result (on
# 9f206c5 this ran: the canary was gone and the not_null test passed over a null)
HOSTILE_WHERE = ("true) dbt_subquery) dbt_internal_test; drop table main.canary; commit; "
                 "select count(*) as failures, false as should_warn, false as should_error "
                 "from (select name from (select null as name where false")
# Jinja inside a SQL string literal: dbt would drop the canary if it rendered it
JINJA_TEXT = '{{ run_query("drop table main.canary") }}'


def model(where: str, opt_in: bool) -> str:
    if opt_in:
        tests = [{"not_null": {"name": "site_name_filtered", "config": {"where": where}}},
                 {"not_null": {"name": "site_name_unfiltered", "where": "site_id <> 's1'"}}]
    else:
        tests = [{"not_null": {"config": {"where": where}}}]
    doc = {"spec_version": 1, "entities": {"site": {
        "grain": "one row per site", "key": ["site_id"],
        "fields": {"site_id": {"type": "string"}, "name": {"type": "string", "tests": tests}}}}}
    return ("sql_test_keys: [where]\n" if opt_in else "") + yaml.safe_dump(doc, sort_keys=False, width=10_000)


MAPPING = """\
mapping_version: 1
source: plant__sites
target: site
key: {site_id: {from: "$.site_id"}}
fields: {name: {from: "$.name"}}
"""


def check(specs) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = bloomery_main(["compile", "--specs", str(specs), "--out", str(specs.parent / "project" / "models" / "bloomery")])
    return code, err.getvalue()


@pytest.mark.parametrize("engine", ENGINES)
def test_sql_in_a_test_where_is_refused_unless_the_project_says_so(engine, tmp_path, request):
    specs = specs_folder(tmp_path, {"model.yaml": model(HOSTILE_WHERE, opt_in=False), "sites.yaml": MAPPING})
    project = engine_project(engine, tmp_path, request, specs)
    project.execute("create table main.canary as select 42 as alive")
    project.write_bronze("plant__sites", ["site_id", "name"], [("s1", "north"), ("s2", "south"), ("s3", None)])

    # refused: located at the key, naming the opt-in; nothing is written, nothing runs
    code, err = check(project.dir / "specs")
    assert code == 1, err
    (line,) = [line for line in err.splitlines() if "SpecParseError" in line]
    assert re.match(r"specs/model\.yaml:\d+:\d+: entities\.site\.fields\.name\.tests\[0\]\.not_null\.config\.where: ", line), line
    assert "`where` carries SQL" in line and "sql_test_keys: [where]" in line and "this spec key carries SQL" in line
    assert not list((project.dir / "models").rglob("*.sql"))
    assert project.query("select alive from main.canary") == [(42,)]

    # opted in: the where clause filters as dbt's does (s3's null name is left out of the first
    # test, not the second), and the Jinja inside its string literal is text, never run
    where = f"site_id <> 's3' and name <> '{JINJA_TEXT}'"
    (project.dir / "specs" / "model.yaml").write_text(model(where, opt_in=True))
    assert project.compile() == 0
    result = project.dbt("build", check=False)
    assert result.statuses["site_name_filtered"] == "pass", result.statuses
    assert result.statuses["site_name_unfiltered"] == "fail", result.statuses
    assert all(s in ("success", "pass") for n, s in result.statuses.items() if n != "site_name_unfiltered"), \
        result.statuses
    assert project.query("select alive from main.canary") == [(42,)]
