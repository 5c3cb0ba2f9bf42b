"""Drive the integration dbt project in-process against a real engine.

Each test gets its own copy of `integration_tests/` in a temporary folder, its own DuckDB file
and its own target path. Bronze relations are written straight into the engine (bronze is the
user's raw data, not a dbt seed); then `bloomery compile` and `dbt` run exactly as a user runs them.

DuckProject and PgProject have one interface (write_bronze, execute, query, rows, compile, dbt)
and one schema, `main`, so a test's SQL reads the same on both. A PgProject gets a database of
its own on the session's server (the `pg_server` fixture in conftest.py).
"""
from __future__ import annotations

import atexit
import contextlib
import io
import itertools
import json
import os
import re
import shutil
import tempfile
import weakref
from dataclasses import dataclass
from pathlib import Path

import duckdb

from bloomery.cli import main as bloomery_main

from ..dbt_process import forget_repeated_behavior_flags

ROOT = Path(__file__).resolve().parents[2]
INTEGRATION = ROOT / "integration_tests"


@dataclass
class DbtResult:
    success: bool
    statuses: dict          # node name -> status string
    exception: BaseException | None
    result: object = None   # dbt's own result object


class Warehouse:
    """The test's statements on the warehouse, through `cursor()` (per engine: a DB-API cursor, or
    DuckDB's connection), the same SQL on every engine (schema `main`); bronze columns are text."""
    mark = "?"              # the driver's parameter marker
    text = "varchar"        # the type of a bronze column

    def cursor(self):
        """A context manager giving the cursor (per engine)."""
        raise NotImplementedError

    def execute(self, sql: str):
        with self.cursor() as cur:
            cur.execute(sql)

    def write_bronze(self, table: str, columns: list[str], rows: list[tuple], append: bool = False):
        with self.cursor() as cur:
            if not append:
                cols = ", ".join(f'"{c}" {self.text}' for c in columns)
                cur.execute(f'drop table if exists main."{table}"')
                cur.execute(f'create table main."{table}" ({cols})')
            if rows:
                marks = ", ".join(self.mark for _ in columns)
                cur.executemany(f'insert into main."{table}" values ({marks})', [tuple(r) for r in rows])

    def query(self, sql: str, params=None) -> list[tuple]:
        with self.cursor() as cur:
            cur.execute(sql, params)
            return cur.fetchall()

    def rows(self, sql: str) -> list[dict]:
        with self.cursor() as cur:
            cur.execute(sql)
            names = [d[0] for d in cur.description]
            return [dict(zip(names, r)) for r in cur.fetchall()]


class _Project(Warehouse):
    engine = ""
    target = ""
    # What dbt leaves in `target/` and `logs/`. By default an invocation writes neither
    # manifest.json nor run_results.json (`--no-write-json`) and logs to file at info level, not
    # debug: dbt's own options, which cut a `run-operation` by a third and a build by a sixth on
    # this machine, and nothing of the product reads those files during a build. A test that reads
    # them (`bloomery summary` reads run_results.json; a manifest; a debug line; the check that no
    # secret lands in `target/` or `logs/` as a user's run writes them) sets `artifacts = True`.
    artifacts = False

    def __init__(self, tmp: Path, specs: Path | None = None):
        self.dir = tmp / "project"
        tmp.mkdir(parents=True, exist_ok=True)
        template = _template(self)
        # the template's project with its packages installed and dbt's partial-parse state, so the
        # first invocation parses only what the test adds (its compiled models), as a user's
        # second run does; the rest of `target/` (and `logs/`) starts empty, as in a fresh copy
        shutil.copytree(template, self.dir, symlinks=True, ignore=lambda d, names: (
            [n for n in names if n != _PARTIAL_PARSE] if Path(d).name == "target" else
            ["logs"] if Path(d) == template else []))
        self._deps_for = (self.dir / "packages.yml").read_text()
        if specs is not None:
            shutil.rmtree(self.dir / "specs")
            shutil.copytree(specs, self.dir / "specs")

    @property
    def deps_done(self) -> bool:
        """`dbt deps` has installed what packages.yml says now (a test may change it)."""
        return self._deps_for == (self.dir / "packages.yml").read_text()

    @deps_done.setter
    def deps_done(self, done: bool):
        self._deps_for = (self.dir / "packages.yml").read_text() if done else None

    def _prepare(self, project_dir: Path) -> None:
        """What this engine's copy of the project changes before its first invocation (per engine)."""

    def _template_key(self) -> tuple:
        """What dbt's partial-parse state depends on beyond the files: the target and its
        connection settings (dbt parses everything again when they differ)."""
        return (self.target,)

    @contextlib.contextmanager
    def _invocation(self):
        """The environment (and, per engine, the folder) a dbt or bloomery invocation runs in."""
        os.environ.update(self._env())
        yield

    def _env(self) -> dict[str, str]:
        raise NotImplementedError

    def materialize(self, kind: str, *entities: str) -> None:
        """Declare `materialization: kind` on the named entities of the project's spec (all of them
        when none is named), right under their `grain:`. An entity that declares none is `full`
        (every build judges all of bronze), so a test of what an incremental build judges says so."""
        done = set()
        for path in sorted((self.dir / "specs").glob("*.y*ml")):
            lines, entity, inside = [], None, False
            for line in path.read_text().splitlines(keepends=True):
                if re.match(r"^[^\s#]", line):
                    inside = line.startswith("entities:")
                name = re.match(r"^  ([A-Za-z_][A-Za-z0-9_]*):\s*$", line) if inside else None
                if name:
                    entity = name.group(1)
                if inside and re.match(r"^    materialization:", line) and (not entities or entity in entities):
                    continue
                lines.append(line)
                if inside and re.match(r"^    grain:", line) and (not entities or entity in entities):
                    lines.append(f"    materialization: {kind}\n")
                    done.add(entity)
            path.write_text("".join(lines))
        assert done and (not entities or done == set(entities)), (kind, entities, done)

    # -- bloomery and dbt -----------------------------------------------------------------------
    def compile(self) -> int:
        return bloomery_main(["compile", "--specs", str(self.dir / "specs"),
                              "--out", str(self.dir / "models" / "bloomery")])

    def dbt(self, *args: str, check: bool = True) -> DbtResult:
        if not self.deps_done and args[0] != "deps":
            self.dbt("deps")
        if args[0] == "deps":
            self.deps_done = True
        with self._invocation():
            res = _invoke(self.dir, self.target, args, lean=not self.artifacts)
        return dbt_result(args, res, check)


def _invoke(project_dir: Path, target: str, args, lean: bool = False) -> object:
    from dbt.cli.main import dbtRunner
    forget_repeated_behavior_flags()
    extra = [] if args[0] == "deps" else ["--target-path", str(project_dir / "target"), "--target", target]
    if lean and args[0] != "deps":
        extra += ["--no-write-json", "--log-level-file", "info"]
    return dbtRunner().invoke([*args, "--project-dir", str(project_dir), "--profiles-dir", str(project_dir),
                               "--log-path", str(project_dir / "logs"), *extra])


# One template per process and template key: `integration_tests/` copied, `dbt deps` and `dbt parse`
# run once; every project starts as a copy of it. Parsing the package's macros costs seconds per
# project, and dbt keeps its parse (`target/partial_parse.msgpack`) valid only for the same target
# and connection settings: hence a relative DuckDB path, and database names reused (PgProject).
_PARTIAL_PARSE = "partial_parse.msgpack"
_templates: dict[tuple, Path] = {}


def _template(project: "_Project") -> Path:
    key = project._template_key()
    if key not in _templates:
        home = Path(tempfile.mkdtemp(prefix="bloomery-template-"))
        atexit.register(shutil.rmtree, home, ignore_errors=True)
        folder = home / "project"
        shutil.copytree(INTEGRATION, folder, ignore=shutil.ignore_patterns("target", "dbt_packages", "logs", "*.duckdb"))
        # the package itself is installed with `local:`; point it at the checkout under test
        (folder / "packages.yml").write_text(f"packages:\n  - local: {ROOT}\n")
        # a clean checkout has no models/ (git keeps no empty folder); a user's project has one
        (folder / "models").mkdir(exist_ok=True)
        project._prepare(folder)
        with project._invocation():
            for args in (["deps"], ["parse", "--no-write-json"]):
                res = _invoke(folder, project.target, args)
                assert res.success, f"the template project: dbt {args[0]} failed: {res.exception}"
        shutil.rmtree(folder / "logs", ignore_errors=True)
        _templates[key] = folder
    return _templates[key]


def dbt_result(args, res, check: bool, messages: bool = False) -> DbtResult:
    """dbt's answer to `dbt *args` with each node's status (the on-run-start/end hooks left out; with
    `messages`, a node that did not pass carries dbt's message after its status); when `check`, an
    invocation that failed raises, naming the nodes that did not pass."""
    statuses = {}
    result = res.result
    if result is not None and hasattr(result, "results"):
        for r in result.results:
            node = getattr(r, "node", None)
            if node is not None and str(getattr(node, "resource_type", "")) == "operation":
                continue  # on-run-start/end hooks (bloomery.assert_engine_supported)
            status = str(r.status)
            if messages and status not in ("success", "pass") and getattr(r, "message", None):
                status += f": {r.message}"
            statuses[node.name if node is not None else getattr(r, "unique_id", "?")] = status
    out = DbtResult(bool(res.success), statuses, res.exception, result)
    if check and not out.success:
        failed = {k: v for k, v in statuses.items() if v not in ("success", "pass")}
        raise AssertionError(f"dbt {' '.join(args)} failed: {failed or res.exception}")
    return out


class DuckProject(_Project):
    engine = target = "duckdb"
    _last_invoked = None    # the warehouse file dbt-duckdb last opened in this process

    def __init__(self, tmp: Path, specs: Path | None = None):
        self.db_path = tmp / "warehouse.duckdb"
        super().__init__(tmp, specs)

    def _env(self):
        return {"BLOOMERY_DUCKDB_PATH": str(self.db_path)}

    @contextlib.contextmanager
    def _invocation(self):
        """dbt runs in the warehouse's folder with the profile's path relative to it (as a user
        runs dbt beside a `dev.duckdb`), so every project's connection settings, and with them
        dbt's partial-parse state, are the template's."""
        from dbt.adapters.duckdb.connections import DuckDBConnectionManager
        if DuckProject._last_invoked != self.db_path:
            # dbt-duckdb keeps one environment per process while the settings are equal: the
            # previous project's (left open by an invocation that failed) is not this database
            DuckDBConnectionManager._ENV = None
            DuckProject._last_invoked = self.db_path
        os.environ.update(self._env())
        os.environ["BLOOMERY_DUCKDB_PATH"] = self.db_path.name
        try:
            with contextlib.chdir(self.db_path.parent):
                yield
        finally:
            os.environ.update(self._env())

    # -- bronze ---------------------------------------------------------------------------------
    def connect(self):
        return duckdb.connect(str(self.db_path))

    @contextlib.contextmanager
    def cursor(self):
        with self.connect() as con:
            yield con


def render(project: _Project, jinja: str) -> str:
    """SQL that the package's macros render on this project's engine (`dbt compile --inline`)."""
    return project.dbt("compile", "--inline", jinja, "--quiet").result.results[0].node.compiled_code


def load_logs(project: _Project) -> str:
    """dbt's log of every invocation in the project (where a failed run-operation's message lands)."""
    return (project.dir / "logs" / "dbt.log").read_text()


class Names:
    """Names of per-project warehouse objects (a PostgreSQL database, a Spark schema), each held
    while its project lives and then given to the next: the connection settings stay those of
    a template whose parse is reused (_template)."""

    def __init__(self):
        self._held: "weakref.WeakValueDictionary[str, object]" = weakref.WeakValueDictionary()

    def take(self, holder: object, pattern: str) -> str:
        name = next(pattern.format(n) for n in itertools.count() if pattern.format(n) not in self._held)
        self._held[name] = holder
        return name


_databases = Names()


class PgProject(_Project):
    """The same project on PostgreSQL: `settings` come from the session's `pg_server` fixture."""
    engine = target = "postgres"
    mark = "%s"
    text = "text"

    def __init__(self, tmp: Path, settings, specs: Path | None = None):
        self.settings = settings
        self.dbname = _databases.take(self, f"bloomery_{{}}_{os.getpid()}")
        settings.create_database(self.dbname)
        super().__init__(tmp, specs)
        self.execute("create schema if not exists main")

    def _template_key(self):
        return (self.target, self.dbname)

    def _env(self):
        return self.settings.env(self.dbname)

    # -- bronze ---------------------------------------------------------------------------------
    def connect(self):
        return self.settings.connect(self.dbname)

    @contextlib.contextmanager
    def cursor(self):
        """A cursor on a connection of its own, closed after."""
        con = self.connect()
        try:
            with con.cursor() as cur:
                yield cur
        finally:
            con.close()


# The engines a test runs on for real, as pytest parameters carrying the engine's mark, and the
# project for one of them: `@pytest.fixture(params=ENGINES)` then `engine_project(...)`. The
# corpora also run on Spark (`ENGINES + [SPARK]`), deselected from the default run by its mark
# and run by `make test-spark`; the PostgreSQL server starts only when a postgres test asks.
import pytest  # noqa: E402  (the helpers above need no pytest)

ENGINES = [pytest.param("duckdb", marks=pytest.mark.duckdb),
           pytest.param("postgres", marks=pytest.mark.postgres)]
SPARK = pytest.param("spark", marks=pytest.mark.spark)


def engine_project(engine: str, tmp: Path, request, specs: Path | None = None) -> _Project:
    if engine == "duckdb":
        return DuckProject(tmp, specs)
    if engine == "spark":
        from .spark import SparkProject   # pyspark is installed for `make test-spark` only
        return SparkProject(tmp, specs)
    return PgProject(tmp, request.getfixturevalue("pg_server"), specs)


def specs_folder(tmp: Path, files: dict[str, str]) -> Path:
    """A folder `specs` under `tmp` holding `files` (name -> YAML text), for `engine_project`."""
    root = tmp / "specs"
    root.mkdir()
    for name, text in files.items():
        (root / name).write_text(text)
    return root


def cases_table(engine: str, tmp: Path, request, columns: list[str], rows: list[tuple]):
    """A project on `engine` whose bronze table `cases` holds `rows`: (the project, the table as a
    query names it, a function running a query to a list of tuples). Spark is queried as written."""
    project = engine_project(engine, tmp, request)
    project.write_bronze("cases", columns, rows)
    if engine == "spark":
        return project, f"`{project.schema}`.`cases`", lambda sql: [tuple(r) for r in project.sql(sql).collect()]
    return project, "main.cases", project.query


def engine_error(engine: str) -> type:
    """What a failed query raises on `engine` (on Spark: any exception)."""
    if engine == "duckdb":
        return duckdb.Error
    if engine == "postgres":
        import psycopg2
        return psycopg2.Error
    return Exception


def summary(project: _Project, *args: str) -> tuple[int, str]:
    """`bloomery summary` on the project, in process: (exit status, what it printed)."""
    out, err = io.StringIO(), io.StringIO()
    with project._invocation(), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = bloomery_main(["summary", "--project-dir", str(project.dir), "--profiles-dir", str(project.dir),
                              "--target", project.target, *args])
    assert code in (0, 4), (code, err.getvalue())
    return code, out.getvalue()


def summary_json(project: _Project, *args: str) -> tuple[int, dict]:
    code, text = summary(project, "--format", "json", *args)
    return code, json.loads(text)


def report(project: _Project, out: Path, *args: str) -> tuple[int, str]:
    """`bloomery report` on the project, in process, writing the page to `out`: (exit status, what
    it said on stderr)."""
    err = io.StringIO()
    with project._invocation(), contextlib.redirect_stderr(err):
        code = bloomery_main(["report", "--project-dir", str(project.dir), "--profiles-dir", str(project.dir),
                              "--target", project.target, *args, "--out", str(out)])
    return code, err.getvalue()
