"""Drive the integration dbt project in-process against a real engine.

Each test gets its own copy of `integration_tests/` in a temporary folder, its own DuckDB file
and its own target path. Bronze relations are written straight into the engine (bronze is the
user's raw data, not a dbt seed); then `bloomery compile` and `dbt` run exactly as a user runs them.
"""
from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import duckdb

from bloomery.cli import main as bloomery_main

ROOT = Path(__file__).resolve().parents[2]
INTEGRATION = ROOT / "integration_tests"


@dataclass
class DbtResult:
    success: bool
    statuses: dict          # node name -> status string
    exception: BaseException | None


class DuckProject:
    def __init__(self, tmp: Path, specs: Path | None = None):
        self.dir = tmp / "project"
        shutil.copytree(INTEGRATION, self.dir, ignore=shutil.ignore_patterns("target", "dbt_packages", "logs", "*.duckdb"))
        # the package itself is installed with `local:`; point it at the checkout under test
        (self.dir / "packages.yml").write_text(f"packages:\n  - local: {ROOT}\n")
        if specs is not None:
            shutil.rmtree(self.dir / "specs")
            shutil.copytree(specs, self.dir / "specs")
        self.db_path = tmp / "warehouse.duckdb"
        self.deps_done = False

    # -- bronze ---------------------------------------------------------------------------------
    def connect(self):
        return duckdb.connect(str(self.db_path))

    def write_bronze(self, table: str, columns: list[str], rows: list[tuple], append: bool = False):
        with self.connect() as con:
            cols = ", ".join(f'"{c}" varchar' for c in columns)
            if not append:
                con.execute(f'create or replace table main."{table}" ({cols})')
            if rows:
                marks = ", ".join("?" for _ in columns)
                con.executemany(f'insert into main."{table}" values ({marks})', [tuple(r) for r in rows])

    def query(self, sql: str) -> list[tuple]:
        with self.connect() as con:
            return con.execute(sql).fetchall()

    def rows(self, sql: str) -> list[dict]:
        with self.connect() as con:
            cur = con.execute(sql)
            names = [d[0] for d in cur.description]
            return [dict(zip(names, r)) for r in cur.fetchall()]

    # -- bloomery and dbt -----------------------------------------------------------------------
    def compile(self) -> int:
        return bloomery_main(["compile", "--specs", str(self.dir / "specs"),
                              "--out", str(self.dir / "models" / "bloomery")])

    def dbt(self, *args: str, check: bool = True) -> DbtResult:
        from dbt.cli.main import dbtRunner
        if not self.deps_done and args[0] != "deps":
            self.dbt("deps")
            self.deps_done = True
        import os
        os.environ["BLOOMERY_DUCKDB_PATH"] = str(self.db_path)
        extra = [] if args[0] == "deps" else ["--target-path", str(self.dir / "target")]
        res = dbtRunner().invoke([*args, "--project-dir", str(self.dir), "--profiles-dir", str(self.dir),
                                  "--log-path", str(self.dir / "logs"), *extra])
        statuses = {}
        result = res.result
        if result is not None and hasattr(result, "results"):
            for r in result.results:
                node = getattr(r, "node", None)
                statuses[node.name if node is not None else getattr(r, "unique_id", "?")] = str(r.status)
        out = DbtResult(bool(res.success), statuses, res.exception)
        if check and not out.success:
            failed = {k: v for k, v in statuses.items() if v not in ("success", "pass")}
            raise AssertionError(f"dbt {' '.join(args)} failed: {failed or res.exception}")
        return out
