"""The integration project on Spark: one local session per test process, shared by every project.

dbt-spark's `session` method runs dbt's SQL through `SparkSession.builder.getOrCreate()`, so the
session started here first (with a throwaway warehouse and metastore, UTC, two shuffle
partitions) is the one dbt uses: the JVM starts once (~30 s on two cores) and each dbt invocation
in-process then costs seconds. Each SparkProject gets a schema of its own; dbt's target reads it
from BLOOMERY_SPARK_SCHEMA (integration_tests/profiles.yml, target `spark`).

A test's SQL is written once for every engine, in the DuckDB/PostgreSQL spelling (double-quoted
identifiers, schema `main`): here sqlglot turns it into Spark SQL and points `main` at the
project's schema.
"""
from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

import sqlglot
from sqlglot import exp

from .harness import Names, _Project

_session = None
_schemas = Names()


def session():
    """The process's Spark session, started on first use."""
    global _session
    if _session is None:
        from pyspark.sql import SparkSession
        home = Path(tempfile.mkdtemp(prefix="bloomery-spark-"))
        atexit.register(shutil.rmtree, home, ignore_errors=True)
        _session = (
            SparkSession.builder.master("local[2]").appName("bloomery-tests")
            .config("spark.sql.warehouse.dir", str(home / "warehouse"))
            .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={home / 'derby'}")
            # the suite's one session outlives ~40 projects; at the default 1g its heap ran out
            # ("Task serialization failed: OutOfMemoryError") late in the run
            .config("spark.driver.memory", "3g")
            .config("spark.sql.session.timeZone", "UTC")
            .config("spark.sql.shuffle.partitions", "2")
            .config("spark.default.parallelism", "2")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.sources.default", "parquet")
            # A test's tables hold a few rows: compiling each query's generated Java (whole-stage
            # and expression codegen) and re-planning it adaptively cost more CPU than they save
            # (test_shop's Spark tests, one run each on the idle machine: 216 core-seconds with
            # them, 186 without). Interpreted and generated code compute the same results; Spark's
            # own suites run both.
            .config("spark.sql.codegen.wholeStage", "false")
            .config("spark.sql.codegen.factoryMode", "NO_CODEGEN")
            .config("spark.sql.adaptive.enabled", "false")
            .enableHiveSupport().getOrCreate())
        _session.sparkContext.setLogLevel("ERROR")
    return _session


def to_spark_sql(sql: str, schema: str) -> str:
    """A test's DuckDB-spelled SQL as Spark SQL, with schema `main` replaced by `schema`."""
    out = []
    for tree in sqlglot.parse(sql, read="duckdb"):
        for table in tree.find_all(exp.Table):
            if table.db == "main":
                table.set("db", exp.to_identifier(schema))
        out.append(tree.sql(dialect="spark"))
    return ";\n".join(out)


def _without_acl(project_dir: Path):
    """Open-source Spark has no access control: GRANT does not even parse. The corpora declare
    grants (a classified column needs them), so this copy of the test project switches dbt's grant
    step off on Spark, the way a user of such a cluster would (a `spark__apply_grants` of the root
    project, found first through `dispatch`). On Databricks grants apply."""
    (project_dir / "macros" / "spark_without_acl.sql").write_text(
        "{#- open-source Spark: no GRANT statement (tests/integration/spark.py) -#}\n"
        "{% macro spark__apply_grants(relation, grant_config, should_revoke=True) %}{% endmacro %}\n")
    project = project_dir / "dbt_project.yml"
    text = project.read_text()
    assert "macro_namespace: dbt\n" not in text
    project.write_text(text.replace("dispatch:\n", "dispatch:\n  - macro_namespace: dbt\n"
                                    "    search_order: [\"bloomery_integration_tests\", \"dbt\"]\n", 1))


def _value(v):
    if hasattr(v, "asDict"):
        return {k: _value(x) for k, x in v.asDict().items()}
    if isinstance(v, list):
        return [_value(x) for x in v]
    return v


class SparkProject(_Project):
    engine = target = "spark"

    def __init__(self, tmp: Path, specs: Path | None = None):
        self.spark = session()
        # a schema a project no longer alive held is dropped and made again: the name stays the
        # template's, and with it dbt's parse (harness._template)
        self.schema = _schemas.take(self, f"bloomery_{{}}_{os.getpid()}")
        self.spark.sql(f"drop schema if exists `{self.schema}` cascade")
        self.spark.sql(f"create schema `{self.schema}`")
        super().__init__(tmp, specs)

    def _prepare(self, project_dir: Path) -> None:
        _without_acl(project_dir)

    def _template_key(self):
        return (self.target, self.schema)

    def _env(self):
        return {"BLOOMERY_SPARK_SCHEMA": self.schema}

    def sql(self, sql: str):
        """Spark SQL as written (no translation)."""
        return self.spark.sql(sql)

    # -- bronze ---------------------------------------------------------------------------------
    def execute(self, sql: str):
        for statement in to_spark_sql(sql, self.schema).split(";\n"):
            self.spark.sql(statement).collect()

    def write_bronze(self, table: str, columns: list[str], rows: list[tuple], append: bool = False):
        from pyspark.sql.types import StringType, StructField, StructType
        schema = StructType([StructField(c, StringType(), True) for c in columns])
        data = [tuple(None if v is None else str(v) for v in r) for r in rows]
        name = f"`{self.schema}`.`{table}`"
        if not append:
            self.spark.sql(f"drop table if exists {name}")
        self.spark.createDataFrame(data, schema).write.format("parquet").mode("append").saveAsTable(name)

    def query(self, sql: str) -> list[tuple]:
        return [tuple(_value(v) for v in r) for r in self.spark.sql(to_spark_sql(sql, self.schema)).collect()]

    def rows(self, sql: str) -> list[dict]:
        return [{k: _value(v) for k, v in r.asDict().items()} for r in self.spark.sql(to_spark_sql(sql, self.schema)).collect()]

