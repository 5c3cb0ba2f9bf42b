"""Interrupted publishing builds on PostgreSQL (write once, issue 22): a real `dbt build`
subprocess killed with SIGKILL inside or around the node that publishes `<entity>__staged`, then
`dbt build` again; the re-run must end where an uninterrupted build ends.

As in test_interrupted_duckdb.py the kill lands where the test chose: a hook of the copied
project runs `pg_sleep` when BLOOMERY_KILL_AT names it, the test sees that statement in
pg_stat_activity and kills dbt; the server then rolls the node's open transaction back. Besides
the project-wide pre- and post-hooks, `<entity>:published` is a point after the publishing
post-hook's last statement (the staged table renamed into place, `__staged` a view, the rest
table written) and before the node's COMMIT: the test project overrides `postgres__publish_staged`
through the dispatch search order to append it. A database is restored for each kill from a
template (`create database ... template`), which costs about a second.

The bronze is the shop corpus with the late load of the DuckDB test, and nothing built: every
kill lands in a build that creates the entities, the one that publishes.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from .harness import INTEGRATION, PgProject
from .test_interrupted_duckdb import ENTITIES, LATE, kill_when_reached

sys.path.insert(0, str(INTEGRATION))
from corpus import shop  # noqa: E402

pytestmark = pytest.mark.postgres

DBT = Path(sys.executable).with_name("dbt")
SLEEP = "pg_sleep(3600)"

KILL_POINT = """{#- A place to die: a statement the test waits for in pg_stat_activity, holding the node open. -#}
{% macro kill_point(name) -%}
  {%- if execute and env_var('BLOOMERY_KILL_AT', '') == name -%}select """ + SLEEP + """{%- else -%}select 1{%- endif -%}
{%- endmacro %}

{#- the package's publishing post-hook, then a kill point before the node commits -#}
{% macro postgres__publish_staged(mapping, source, staged) -%}
  {{ bloomery._publish_in_place(mapping, source, staged) }};
  {{ kill_point(this.name ~ ':published') }}
{%- endmacro %}
"""
HOOKS = """
models:
  bloomery_integration_tests:
    +pre-hook: "{{ kill_point(this.name ~ ':pre') }}"
    +post-hook: "{{ kill_point(this.name ~ ':post') }}"
"""
CLOCK = {"run_id", "resolved_at", "last_evaluated_at"}

KILLS = [
    "order_item__reject:post",     # inside the first reject write
    "customer:post",               # inside the entity node, around its publishing post-hook
    "customer:published",          # the staged table renamed into place, `__staged` a view: not committed
    "order:published",             # the same for an entity with an unknown member
    "customer__ledger:pre",        # the entity published and committed, the ledger not built
    "order:pre",                   # a child's parent published, the child's staged table audited
]


def multiset(project, relation: str) -> Counter:
    names = [n for (n,) in project.query(
        "select attname from pg_attribute where attrelid = %s::regclass and attnum > 0 and not attisdropped "
        "order by attnum", (f'main."{relation}"',)) if n not in CLOCK]
    return Counter(map(repr, project.query(f'select {", ".join(chr(34) + n + chr(34) for n in names)} from main."{relation}"')))


def state(project) -> dict:
    return {r: multiset(project, r) for e in ENTITIES for r in (e, f"{e}__reject", f"{e}__ledger")}


@pytest.fixture(scope="module")
def prepared(request, tmp_path_factory):
    """Every bronze row written (the late load too), nothing built; a template copy of it."""
    project = PgProject(tmp_path_factory.mktemp("interrupted_pg"), request.getfixturevalue("pg_server"))
    project.materialize("incremental_by_key")
    (project.dir / "macros" / "kill_point.sql").write_text(KILL_POINT)
    with open(project.dir / "dbt_project.yml", "a") as f:
        f.write(HOOKS)
    for table, spec in shop.BRONZE.items():
        project.write_bronze(table, spec["columns"], [v for v, _ in spec["rows"]] + LATE[table])
    assert project.compile() == 0
    project.dbt("deps")
    project.template = project.dbname + "_snapshot"
    project.settings.sql(f'create database "{project.template}" template "{project.dbname}"')
    return project


def restore(project):
    # a backend notices that its client died only when it next talks to it, which a sleeping one
    # does not: the server checks the connection while a statement runs (a setting of the
    # database, which its template copy does not carry over)
    project.settings.sql(f'drop database "{project.dbname}" with (force)',
                         f'create database "{project.dbname}" template "{project.template}"',
                         f'alter database "{project.dbname}" set client_connection_check_interval = 100')


def dbt_build(project, kill_at: str | None = None, timeout: float = 300):
    env = {**os.environ, **project._env(), "DBT_SEND_ANONYMOUS_USAGE_STATS": "false", "BLOOMERY_KILL_AT": kill_at or ""}
    cmd = [str(DBT), "build", "--project-dir", str(project.dir), "--profiles-dir", str(project.dir),
           "--target-path", str(project.dir / "target"), "--log-path", str(project.dir / "logs"), "--target", "postgres"]
    if kill_at is None:
        return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    # by what it waits on: the text of a long hook is cut short in pg_stat_activity
    waiting = ("select count(*) from pg_stat_activity where datname = current_database() "
               "and state = 'active' and wait_event = 'PgSleep'")
    status = kill_when_reached(cmd, env, lambda: bool(project.query(waiting)[0][0]), kill_at, timeout, poll=0.1)
    # the server notices the dropped connection and rolls its transaction back
    deadline = time.monotonic() + 60
    while project.query(waiting)[0][0]:
        assert time.monotonic() < deadline, "the killed session is still running"
        time.sleep(0.1)
    return status


@pytest.fixture(scope="module")
def reference(prepared):
    restore(prepared)
    done = dbt_build(prepared)
    assert done.returncode == 0, done.stdout[-3000:]
    return state(prepared)


def relkind(project, relation: str):
    rows = project.query("select c.relkind from pg_class c join pg_namespace n on n.oid = c.relnamespace "
                         "where n.nspname = 'main' and c.relname = %s", (relation,))
    return rows[0][0] if rows else None


@pytest.mark.parametrize("point", KILLS)
def test_killed_publishing_build_then_rebuilt(prepared, reference, point):
    restore(prepared)
    assert dbt_build(prepared, kill_at=point) == -signal.SIGKILL
    entity = point.split(":")[0]
    if point.endswith(":published"):
        # rolled back: no entity, the staged table as its node committed it, no rest table
        assert relkind(prepared, entity) is None
        assert relkind(prepared, f"{entity}__staged") == "r"
        assert relkind(prepared, f"{entity}__staged_rest") is None
    again = dbt_build(prepared)
    assert again.returncode == 0, again.stdout[-3000:]
    after = state(prepared)
    for relation, rows in reference.items():
        assert after[relation] == rows, (
            f"{relation} after a kill at {point}:\n  missing {sorted(rows - after[relation])}\n"
            f"  unexpected {sorted(after[relation] - rows)}")
