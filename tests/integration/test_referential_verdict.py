"""The referential verdict, row by row, on DuckDB and PostgreSQL: the staged query matches a row
against the parent's distinct keys (quality_split, `joined`), and which rows that flags must not
depend on how the engine runs the join.

The referential corpus's orphans (a NULL key, an empty string, a quarantined parent, the Unknown
member's own key, case and whitespace variants) under `on_missing: flag`, and a reference over two
columns, where a row with either column NULL is never an orphan and a parent whose second
column is NULL matches nothing."""
from __future__ import annotations

import sys

import pytest

from .harness import ENGINES, INTEGRATION, engine_project, specs_folder

CORPUS = INTEGRATION / "corpus" / "referential"
sys.path.insert(0, str(CORPUS))
import bronze as ref_bronze  # noqa: E402


@pytest.mark.parametrize("engine", ENGINES)
def test_single_column_orphans(engine, tmp_path, request):
    project = engine_project(engine, tmp_path, request, specs=CORPUS / "specs")
    project.write_bronze("crm__accounts", ref_bronze.ACCOUNTS_COLUMNS, ref_bronze.ACCOUNTS)
    for kind in ("um", "q", "f"):
        project.write_bronze(f"pay__payments_{kind}", ref_bronze.PAYMENTS_COLUMNS, [v for v, _ in ref_bronze.PAYMENTS])
    assert project.compile() == 0
    project.dbt("build")
    flagged = {r["_source_row_id"]: "payment_f_account_referential" in list(r["_quality_flags"])
               for r in project.rows("select * from main.payment_f")}
    assert flagged == {values[-1]: orphan for values, orphan in ref_bronze.PAYMENTS}


MODEL = """\
spec_version: 1
entities:
  account:
    grain: one row per account
    key: [account_id]
    fields:
      account_id: {type: string}
      region: {type: string}
    quarantine: {retention: 90d}
  line:
    grain: one row per line
    key: [line_id]
    fields:
      line_id: {type: string}
      account_id: {type: string}
      region: {type: string}
    quarantine: {retention: 90d}
    quality:
      - {rule: referential, via: line_account, on_missing: flag}
relationships:
  - {name: line_account, from: line, to: account, via: {account_id: account_id, region: region}, cardinality: many_to_one}
"""
ACCOUNTS_SPEC = """\
mapping_version: 1
source: crm__accounts
target: account
key:
  account_id: {from: "$.id"}
fields:
  region: {from: "$.region"}
unmapped: ["$._load_id", "$._ingested_at", "$._source_row_id"]
"""
LINES_SPEC = """\
mapping_version: 1
source: shop__lines
target: line
key:
  line_id: {from: "$.id"}
fields:
  account_id: {from: "$.account"}
  region: {from: "$.region"}
unmapped: ["$._load_id", "$._ingested_at", "$._source_row_id"]
"""
META = ("l1", "2024-01-01 00:00:00")
ACCOUNTS = [("A1", "EU"), ("A2", "US"), ("A3", None)]
# (id, account, region, orphan)
LINES = [
    ("L1", "A1", "EU", False),
    ("L2", "A1", "US", True),      # the account exists, not in that region
    ("L3", "A2", "US", False),
    ("L4", "A1", None, False),     # a NULL column: never an orphan
    ("L5", None, "EU", False),
    ("L6", None, None, False),
    ("L7", "A3", "EU", True),      # A3 has no region: it matches nothing
    ("L8", "A9", "EU", True),
]


@pytest.mark.parametrize("engine", ENGINES)
def test_two_column_reference(engine, tmp_path, request):
    specs = specs_folder(tmp_path, {"entity_model.yaml": MODEL, "mapping_accounts.yaml": ACCOUNTS_SPEC,
                                    "mapping_lines.yaml": LINES_SPEC})
    project = engine_project(engine, tmp_path, request, specs=specs)
    project.write_bronze("crm__accounts", ["id", "region", "_load_id", "_ingested_at", "_source_row_id"],
                         [(a, r, *META, f"a-{i}") for i, (a, r) in enumerate(ACCOUNTS)])
    project.write_bronze("shop__lines", ["id", "account", "region", "_load_id", "_ingested_at", "_source_row_id"],
                         [(i, a, r, *META, i) for i, a, r, _ in LINES])
    assert project.compile() == 0
    project.dbt("build")
    flagged = {r["line_id"]: "line_account_referential" in list(r["_quality_flags"])
               for r in project.rows("select * from main.line")}
    assert flagged == {i: orphan for i, _, _, orphan in LINES}
