"""One integration project reused across many scenarios: cheap enough to build hundreds of times.

`harness.DuckProject` copies the project per test and lets dbt parse it on every invocation.
That is what a user does, and it costs seconds per build. A property test that builds a few
hundred scenarios cannot pay that, so this driver:

  - copies `integration_tests/` once, compiles each spec *variant* into it and parses it the first
    time the variant is used (dbt's partial parse: only what the variant changes); every
    invocation then hands dbt the parsed manifest (`dbtRunner(manifest=...)`), so switching
    variants (a spec widening) is choosing a manifest, not re-parsing;
  - `ReusedDuckProject` runs on an in-memory DuckDB kept open for the whole module (no file, no
    lock, no fsync), read and written through dbt-duckdb's own connection; `ReusedPgProject` on a
    database of its own on the session's PostgreSQL server, read and written through one psycopg2
    connection. Both have one interface (dbt, query, rows, execute, write_bronze, reset, close,
    variant) and one schema, `main`, so a test's SQL reads the same on both;
  - `reset()` drops every relation, so the next scenario starts from an empty warehouse, exactly as
    a fresh DuckDB file or a fresh database would;
  - memoizes Jinja's template compilation and dbt's scan of the environment for secrets while
    the project is open (`close()` restores both), and runs single-threaded: on the tiny tables of
    a scenario, all three are pure overhead.

The models, macros and materializations that run are the real ones; only parsing is shared.
"""
from __future__ import annotations

import itertools
import json
import os
import shutil
from contextlib import contextmanager
from pathlib import Path

import jinja2

from bloomery.cli import main as bloomery_main

from ..dbt_process import forget_repeated_behavior_flags
from .harness import INTEGRATION, ROOT, DbtResult, Warehouse, dbt_result


def _cached_compile(compile_):
    """Jinja's compile, memoized on the template source. dbt builds a fresh Jinja environment and
    compiles every model and macro body again on every node of every invocation; the compiled code
    depends only on the source and the environment's class (its extensions are always the same),
    so a scenario's hundredth build can reuse its first build's code. Rendering is untouched."""
    cache = {}

    def compile(self, source, name=None, filename=None, raw=False, defer_init=False):
        if not isinstance(source, str):
            return compile_(self, source, name, filename, raw, defer_init)
        key = (type(self), getattr(self, "undefined", None), source, name, filename, raw, defer_init)
        if key not in cache:
            cache[key] = compile_(self, source, name, filename, raw, defer_init)
        return cache[key]
    compile.original = compile_
    return compile


def _fixed_env_secrets():
    """dbt-common scans the whole environment for `DBT_ENV_SECRET_` variables (`env_secrets`) on
    every exception it makes, and a Jinja `{{ return(...) }}` is one: the package's macros return
    several hundred times per build, so the scans cost about a sixth of a build's CPU. The
    environment does not change while a project is open: scanned once, the same secrets are
    scrubbed. `close()` restores the scan."""
    import dbt_common.events.functions as events
    import dbt_common.exceptions.base as base
    scan = getattr(base.env_secrets, "original", base.env_secrets)
    secrets = scan()

    def env_secrets():
        return list(secrets)
    env_secrets.original = scan
    base.env_secrets = events.env_secrets = env_secrets


def _restore_env_secrets():
    import dbt_common.events.functions as events
    import dbt_common.exceptions.base as base
    if hasattr(base.env_secrets, "original"):
        base.env_secrets = events.env_secrets = base.env_secrets.original


QUIET = ["--no-write-json", "--no-partial-parse", "--no-send-anonymous-usage-stats"] + (
    [] if os.environ.get("BLOOMERY_DBT_VERBOSE") else ["--quiet", "--log-level-file", "none"])



class _ReusedProject(Warehouse):
    """What does not depend on the engine: the copied project, one parsed manifest per spec
    variant, dbt invocations on the chosen one, and the warehouse read and written through a
    DB-API cursor (`cursor()`, per engine) with the same SQL on both engines (schema `main`)."""
    engine = ""

    def __init__(self, tmp: Path, variants: dict[str, Path], macros: dict[str, str] | None = None):
        self.dir = tmp / "project"
        shutil.copytree(INTEGRATION, self.dir, ignore=shutil.ignore_patterns("target", "dbt_packages", "logs", "*.duckdb"))
        (self.dir / "packages.yml").write_text(f"packages:\n  - local: {ROOT}\n")
        (self.dir / "profiles.yml").write_text(self.profile())
        for name, text in (macros or {}).items():
            (self.dir / "macros" / name).write_text(text)
        self._base = ["--project-dir", str(self.dir), "--profiles-dir", str(self.dir),
                      "--log-path", str(self.dir / "logs"), "--target-path", str(self.dir / "target")]
        from dbt.cli.main import dbtRunner
        self._runner_class = dbtRunner
        if not hasattr(jinja2.Environment.compile, "original"):
            jinja2.Environment.compile = _cached_compile(jinja2.Environment.compile)
        _fixed_env_secrets()
        res = dbtRunner().invoke(["deps", "--quiet", *self._base[:4], "--log-path", str(self.dir / "logs")])
        assert res.success, res.exception
        self.variants, self.manifests = variants, {}
        self.variant = next(iter(variants))

    def manifest(self, name: str):
        """The parsed manifest of a variant, parsed the first time it is asked for (a run that draws
        few variants parses few). dbt's partial parse carries the package and the project from one
        variant to the next: only the compiled models that differ are parsed again."""
        if name not in self.manifests:
            out = self.dir / "models" / "bloomery"
            shutil.rmtree(out, ignore_errors=True)
            assert bloomery_main(["compile", "--specs", str(self.variants[name]), "--out", str(out)]) == 0, name
            res = self._runner_class().invoke(["parse", "--quiet", "--no-write-json", *self._base])
            assert res.success, res.exception
            self.manifests[name] = res.result
        return self.manifests[name]

    def profile(self) -> str:
        """profiles.yml: one target, one thread."""
        raise NotImplementedError

    def close(self):
        """Give Jinja its own compile, and dbt its environment scan, back."""
        if hasattr(jinja2.Environment.compile, "original"):
            jinja2.Environment.compile = jinja2.Environment.compile.original
        _restore_env_secrets()

    # -- dbt --------------------------------------------------------------------------------------
    def dbt(self, *args: str, check: bool = True) -> DbtResult:
        forget_repeated_behavior_flags()
        runner = self._runner_class(manifest=self.manifest(self.variant))
        res = runner.invoke([*args, *QUIET, *self._base])
        return dbt_result(args, res, check, messages=True)

    # -- the warehouse ----------------------------------------------------------------------------
    @contextmanager
    def cursor(self):
        cur = self._connection().cursor()
        try:
            yield cur
        finally:
            cur.close()

    def _connection(self):
        """The connection the test's statements go through."""
        raise NotImplementedError

    def reset(self):
        """Drop every relation dbt or a test created: the next scenario starts from nothing."""
        raise NotImplementedError


class ReusedDuckProject(_ReusedProject):
    engine = "duckdb"

    def profile(self) -> str:
        return """bloomery_integration_tests:
  target: duckdb
  outputs:
    duckdb:
      type: duckdb
      path: ":memory:"
      threads: 1
      settings:
        threads: 1
"""

    def _connection(self):
        from dbt.adapters.duckdb.connections import DuckDBConnectionManager
        env = DuckDBConnectionManager._ENV
        if env is None or getattr(env.creds, "path", None) != ":memory:":
            # nothing has run yet in this process (or another project replaced the environment):
            # a no-op invocation opens the in-memory database dbt will keep using
            self.dbt("run-operation", "bloomery.assert_engine_supported")
            env = DuckDBConnectionManager._ENV
        return env.conn

    def reset(self):
        with self.cursor() as cur:
            found = cur.execute("select table_schema, table_name, table_type from information_schema.tables "
                                "where table_catalog = current_database() and table_schema not in ('information_schema', 'pg_catalog')").fetchall()
            for schema, name, kind in found:
                cur.execute(f'drop {"view" if kind == "VIEW" else "table"} if exists "{schema}"."{name}" cascade')


_databases = itertools.count()


class ReusedPgProject(_ReusedProject):
    """The same on PostgreSQL: a database of its own on the session's server (`settings` come from
    the `pg_server` fixture), dbt connecting to it as a user's profile does, the test through one
    psycopg2 connection in autocommit kept open for the project's life."""
    engine = "postgres"
    mark = "%s"
    text = "text"           # as harness.PgProject lands bronze

    def __init__(self, tmp: Path, settings, variants: dict[str, Path], macros: dict[str, str] | None = None):
        self.settings = settings
        self.dbname = f"bloomery_reused_{next(_databases)}_{os.getpid()}"
        settings.create_database(self.dbname)
        self._con = None
        self.execute("create schema if not exists main")
        super().__init__(tmp, variants, macros)

    def profile(self) -> str:
        s = self.settings
        return f"""bloomery_integration_tests:
  target: postgres
  outputs:
    postgres:
      type: postgres
      host: {json.dumps(s.host)}
      port: {s.port}
      user: {json.dumps(s.user)}
      password: {json.dumps(s.password)}
      dbname: {json.dumps(self.dbname)}
      schema: main
      threads: 1
"""

    def close(self):
        super().close()
        if self._con is not None:
            self._con.close()
            self._con = None

    def _connection(self):
        if self._con is None or self._con.closed:
            self._con = self.settings.connect(self.dbname)
        return self._con

    def reset(self):
        """Every schema of the database but PostgreSQL's own, dropped; `main` made again."""
        with self.cursor() as cur:
            cur.execute("select nspname from pg_namespace where nspname not like 'pg\\_%' and nspname <> 'information_schema'")
            for (schema,) in cur.fetchall():
                cur.execute(f'drop schema "{schema}" cascade')
            cur.execute("create schema main")
