"""Render the integration project for a warehouse there is no server for, with dbt and the real
adapter package, offline.

Everything dbt does runs as it would against the warehouse: the project is parsed, the adapter's
plugin is registered, `adapter.dispatch` picks `<adapter>__` macros (and its parents': redshift
falls back to postgres, databricks to spark), materialization-free `dbt compile` renders every
model and test, `dbt run-operation` runs replay and purge. Only the warehouse itself is absent, so
the adapter's connection is replaced by one that answers every statement with no rows and records
it (`Warehouse`): the statements are what the adapter would have sent.

Two states of that warehouse are rendered:
  - empty: no relation exists, as on a first build (full-build SQL, `is_incremental()` false);
  - built: every relation exists, the ledger among them (incremental SQL, the
    hooks, replay and purge).
What is not rendered: the adapter's own materialization DDL (`create table as`, `merge`), which
needs column metadata the absent warehouse can not give, and the answers of introspective queries.
"""
from __future__ import annotations

import importlib
import re
from contextlib import contextmanager
from dataclasses import dataclass, field

import pytest

ADAPTERS = {"trino": "dbt.adapters.trino", "snowflake": "dbt.adapters.snowflake", "bigquery": "dbt.adapters.bigquery",
            "redshift": "dbt.adapters.redshift", "databricks": "dbt.adapters.databricks"}
DIALECTS = list(ADAPTERS)

# A test per dialect, in that dialect's xdist group: `make test-dialects` runs on two workers with
# `--dist loadgroup`, so a dialect's renders (kept per process by the tests' fixtures) are made
# once, and a worker imports only the adapters of its own groups. The referential corpus, read by
# one test alone, is a group of its own per dialect (test_render_dialects.py) to even the shares.
def in_group(*values: str, group: str):
    """One parameter set of a dialect test, in the xdist group `group`."""
    return pytest.param(*values, marks=pytest.mark.xdist_group(group), id="-".join(values))


by_dialect = pytest.mark.parametrize("dialect", [in_group(d, group=d) for d in DIALECTS])

# one dummy output per adapter: nothing here is ever contacted
PROFILES = """bloomery_integration_tests:
  target: trino
  outputs:
    trino: {type: trino, method: none, host: 127.0.0.1, port: 9, user: render, database: lake, schema: main, threads: 1}
    snowflake: {type: snowflake, account: render, user: render, password: render, database: LAKE, schema: MAIN, warehouse: RENDER, threads: 1}
    bigquery: {type: bigquery, method: oauth, project: render-project, dataset: main, threads: 1}
    redshift: {type: redshift, host: 127.0.0.1, port: 9, user: render, password: render, dbname: lake, schema: main, threads: 1}
    databricks: {type: databricks, host: render.invalid, http_path: /sql/1.0/warehouses/render, token: render, catalog: lake, schema: main, threads: 1}
"""


@dataclass
class Warehouse:
    """The absent warehouse: which relations exist, and every statement sent to it."""
    built: bool = False
    statements: list[str] = field(default_factory=list)

    def answer(self, sql: str):
        import agate
        text = " ".join(sql.lower().split())
        if re.match(r"^select count\(\*\)", text):
            return agate.Table([[0]], ["n"])
        return agate.Table([], ["value"])


@contextmanager
def offline(dialect: str, warehouse: Warehouse):
    """Within this block, dbt's `dialect` adapter talks to `warehouse` instead of a server."""
    from dbt.adapters.contracts.connection import AdapterResponse, ConnectionState

    plugin = importlib.import_module(ADAPTERS[dialect]).Plugin
    adapter_cls = plugin.adapter
    manager = adapter_cls.ConnectionManager

    def execute(self, sql, auto_begin=False, fetch=False, limit=None, **kwargs):
        warehouse.statements.append(sql)
        return AdapterResponse(_message="OK"), warehouse.answer(sql)

    def open_(cls, connection):
        connection.handle = _Handle()
        connection.state = ConnectionState.OPEN
        return connection

    def get_relation(self, database, schema, identifier, *args, **kwargs):
        if not warehouse.built:
            return None
        return self.Relation.create(database=database, schema=schema, identifier=identifier, type="table")

    def list_relations(self, schema_relation, *args, **kwargs):
        return []

    def get_columns_in_relation(self, relation, *args, **kwargs):
        # the absent warehouse knows no columns (BigQuery would ask its API through the handle)
        return []

    patches = [(manager, "execute", execute), (manager, "open", classmethod(open_)),
               (manager, "begin", lambda self: None), (manager, "commit", lambda self: None),
               (manager, "cancel_open", lambda self: []),
               (adapter_cls, "get_relation", get_relation),
               (adapter_cls, "list_relations_without_caching", list_relations),
               (adapter_cls, "get_columns_in_relation", get_columns_in_relation)]
    if hasattr(manager, "_cache_dbr_capabilities"):          # databricks asks the cluster its version
        patches.append((manager, "_cache_dbr_capabilities", classmethod(lambda cls, creds, http_path: None)))
    saved = [(owner, name, owner.__dict__.get(name)) for owner, name, _ in patches]
    try:
        for owner, name, value in patches:
            setattr(owner, name, value)
        yield warehouse
    finally:
        for owner, name, value in saved:
            if value is None:
                delattr(owner, name)
            else:
                setattr(owner, name, value)


class _Handle:
    """A connection handle nothing reads from."""
    dbr_version = (16, 4)

    def close(self):
        pass


ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]


class Rendered(dict):
    """{"<state>/<artifact>": sql}, plus `strategies`: {model: incremental_strategy} as parsed."""
    strategies: dict


def render(dialect: str, specs, tmp) -> Rendered:
    """Every statement the package renders for `dialect` from the spec tree `specs`:
    {"<state>/<artifact>": sql}, state being `empty` or `built` (see the module's doc)."""
    import json
    import shutil
    from pathlib import Path

    from bloomery.cli import main as bloomery_main
    from dbt.cli.main import dbtRunner

    from ..dbt_process import forget_repeated_behavior_flags

    project = Path(tmp) / "project"
    shutil.copytree(ROOT / "integration_tests", project,
                    ignore=shutil.ignore_patterns("target", "dbt_packages", "logs", "*.duckdb", "specs"))
    shutil.copytree(specs, project / "specs")
    (project / "packages.yml").write_text(f"packages:\n  - local: {ROOT}\n")
    (project / "profiles.yml").write_text(PROFILES)
    assert bloomery_main(["compile", "--specs", str(project / "specs"), "--out", str(project / "models" / "bloomery")]) == 0

    def dbt(*args, target_path):
        forget_repeated_behavior_flags()
        res = dbtRunner().invoke([*args, "--project-dir", str(project), "--profiles-dir", str(project),
                                  "--log-path", str(project / "logs"), "--target", dialect,
                                  "--target-path", str(project / target_path), "--no-populate-cache", "--quiet"])
        if not res.success:
            raise AssertionError(f"{dialect}: dbt {' '.join(args)} failed: {res.exception or res.result}")
        return res

    out = Rendered()

    def collect(state: str, target_path: str, warehouse: Warehouse):
        compiled = project / target_path / "compiled"
        for path in sorted(compiled.rglob("*.sql")):
            out[f"{state}/{path.relative_to(compiled)}"] = path.read_text()
        for i, sql in enumerate(warehouse.statements):
            out[f"{state}/statement_{i:03d}"] = sql

    dbtRunner().invoke(["deps", "--project-dir", str(project), "--profiles-dir", str(project),
                        "--log-path", str(project / "logs"), "--quiet"])
    with offline(dialect, Warehouse(built=False)) as warehouse:
        dbt("compile", target_path="target_empty")
        collect("empty", "target_empty", warehouse)

    # the hooks, rendered where they run: as the body of a model of the same materialization
    manifest = json.loads((project / "target_empty" / "manifest.json").read_text())
    hooks_dir = project / "models" / "bloomery_hooks"
    hooks_dir.mkdir()
    rejects = []
    out.strategies = {}
    for node in manifest["nodes"].values():
        if node["resource_type"] != "model" or node["package_name"] != "bloomery_integration_tests":
            continue
        if node["config"]["materialized"] == "incremental":
            out.strategies[node["name"]] = node["config"].get("incremental_strategy")
        if node["name"].endswith("__reject"):
            rejects.append(node["name"][: -len("__reject")])
        for when in ("pre-hook", "post-hook"):
            for i, hook in enumerate(node["config"].get(when, [])):
                name = f"{node['name']}__{when.replace('-', '_')}_{i}"
                (hooks_dir / f"{name}.sql").write_text(
                    "{{ config(materialized=" + repr(node["config"]["materialized"]) + ") }}\n" + hook["sql"] + "\n")
    with offline(dialect, Warehouse(built=True)) as warehouse:
        dbt("compile", target_path="target_built")
        for entity in sorted(rejects):
            dbt("run-operation", "bloomery.replay", "--args", "{entity: " + entity + "}", target_path="target_built")
            dbt("run-operation", "bloomery.purge_rejects", "--args", "{entity: " + entity + "}", target_path="target_built")
        collect("built", "target_built", warehouse)
    return out
