"""`make demo`: compile a shop's specs, land dirty bronze in DuckDB, `dbt build`, and say what happened.

The shop has customers, orders, order lines and payments (demo/specs); the bronze rows are the
integration corpus plus demo/payments.py.

Everything happens in demo/build/ (a dbt project that installs this checkout with `local:`),
so you can open demo/build/warehouse.duckdb afterwards and look at the tables yourself.
"""
from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import duckdb
from dbt.cli.main import dbtRunner

from bloomery.cli import main as bloomery

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "demo" / "build"
sys.path.insert(0, str(ROOT / "integration_tests"))
sys.path.insert(0, str(ROOT / "demo"))
import payments  # noqa: E402
from corpus import shop  # noqa: E402

BRONZE = {**{t: (s["columns"], [v for v, _ in s["rows"]]) for t, s in shop.BRONZE.items()},
          "psp__payments": (payments.COLUMNS, payments.ROWS)}


def dbt(*args: str) -> bool:
    return dbtRunner().invoke([*args, "--project-dir", str(BUILD), "--profiles-dir", str(BUILD), "--quiet"]).success


def main() -> int:
    shutil.rmtree(BUILD, ignore_errors=True)
    shutil.copytree(ROOT / "integration_tests", BUILD,
                    ignore=shutil.ignore_patterns("target", "dbt_packages", "logs", "*.duckdb", "corpus", "specs"))
    shutil.copytree(ROOT / "demo" / "specs", BUILD / "specs")
    (BUILD / "packages.yml").write_text(f"packages:\n  - local: {ROOT}\n")
    warehouse = BUILD / "warehouse.duckdb"
    os.environ["BLOOMERY_DUCKDB_PATH"] = str(warehouse)

    with duckdb.connect(str(warehouse)) as con:
        for table, (columns, rows) in BRONZE.items():
            cols = ", ".join(f'"{c}" varchar' for c in columns)
            con.execute(f'create table "{table}" ({cols})')
            con.executemany(f'insert into "{table}" values ({", ".join("?" for _ in columns)})', rows)
            print(f"bronze {table}: {len(rows)} rows landed")

    print("\n$ bloomery compile --specs specs --out models/bloomery")
    if bloomery(["compile", "--specs", str(BUILD / "specs"), "--out", str(BUILD / "models" / "bloomery")]):
        return 1
    print("$ dbt deps && dbt build")
    if not (dbt("deps") and dbt("build")):
        print("dbt build failed: see demo/build/logs/dbt.log")
        return 1

    with duckdb.connect(str(warehouse)) as con:
        print("\nWhat happened to every bronze row (from mart_data_quality):\n")
        print(f"{'entity':<12}{'evaluated':>10}{'kept':>7}{'flagged':>9}{'quarantined':>13}{'deduped':>9}")
        for entity, evaluated, quarantined, deduped in con.execute(
                "select entity, rows_evaluated, rows_quarantined, rows_deduped from mart_data_quality "
                "where rule = '(entity)' order by entity").fetchall():
            kept, flagged = con.execute(
                f'select count(*), count(*) filter (where not _quality_ok) from "{entity}" '
                "where _source_row_id is not null").fetchone()   # not the reserved Unknown member
            print(f"{entity:<12}{evaluated:>10}{kept:>7}{flagged:>9}{quarantined:>13}{deduped:>9}")
        print("\nRules that fired:\n")
        print(f"{'entity':<12}{'rule':<34}{'disposition':<12}{'rows':>5}")
        for row in con.execute("select entity, rule, disposition, rows_failed from mart_data_quality "
                               "where rule <> '(entity)' and (rows_failed > 0 or disposition = 'fail') "
                               "order by entity, rule").fetchall():
            print(f"{row[0]:<12}{row[1]:<34}{row[2]:<12}{row[3]:>5}")
        print("\nA quarantined row keeps its whole story:\n")
        for row in con.execute("select failed_rules, key_values, raw from order_item__reject "
                               "where _source_row_id = 'i-2'").fetchall():
            print(f"  failed_rules {row[0]}\n  key_values   {row[1]}\n  raw          {row[2]}")
    print(f"\nThe warehouse is {warehouse.relative_to(ROOT)}; the dbt project is {BUILD.relative_to(ROOT)}.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
