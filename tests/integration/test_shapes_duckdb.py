"""Spec shapes the reference allows that the shop corpus does not use, built for real on DuckDB:
one bronze relation feeding two entities, and expression rules over a bool column and the clock."""
from __future__ import annotations

import pytest

from bloomery.cli import main as bloomery_main

from .harness import DuckProject, specs_folder

pytestmark = pytest.mark.duckdb

MODEL = """\
spec_version: 1
entities:
  sale:
    grain: one row per sale
    key: [sale_id]
    fields: {sale_id: {type: string}, is_test: {type: bool}, sold_at: {type: timestamp}}
    dedupe: {keep: latest_by, field: _ingested_at, tie_break: [_load_id]}
    quarantine: {retention: 52w}
    quality:
      - {rule: expression, name: real_sale, expr: "NOT is_test", on_fail: flag}
      - {rule: expression, name: not_in_future, expr: "sold_at <= current_timestamp", on_fail: quarantine}
  shop:
    grain: one row per shop
    key: [shop_id]
    fields: {shop_id: {type: string}}
    dedupe: {keep: latest_by, field: _ingested_at, tie_break: [_load_id]}
"""


def pos_sales(target: str, key: str, rest: str) -> str:
    """A mapping of the bronze relation `pos__sales` onto `target`: both entities read it, under one
    freshness policy."""
    return f"mapping_version: 1\nsource: pos__sales\ntarget: {target}\nfreshness: {{warn_after: 1d}}\nkey: {key}\n{rest}"


SALES = pos_sales("sale", '{sale_id: {from: "$.id"}}', """\
fields:
  is_test: {from: "$.test", transform: [to_bool]}
  sold_at: {from: "$.at", transform: [{parse_ts: ISO8601}]}
unmapped: ["$.shop", "$._load_id", "$._ingested_at", "$._source_row_id"]
""")
SHOPS = pos_sales("shop", '{shop_id: {from: "$.shop"}}',
                  'unmapped: ["$.id", "$.test", "$.at", "$._load_id", "$._ingested_at", "$._source_row_id"]\n')


def specs(tmp_path, shops=SHOPS):
    return specs_folder(tmp_path, {"model.yaml": MODEL, "sales.yaml": SALES, "shops.yaml": shops})


def test_one_bronze_relation_feeds_two_entities_and_bool_and_clock_expressions(tmp_path):
    project = DuckProject(tmp_path, specs(tmp_path))
    project.write_bronze("pos__sales", ["id", "test", "at", "shop", "_load_id", "_ingested_at", "_source_row_id"], [
        ("s1", "false", "2024-01-01 10:00:00", "p1", "l1", "2024-01-01 11:00:00", "r1"),
        ("s2", "true", "2024-01-01 10:00:00", "p1", "l1", "2024-01-01 11:00:00", "r2"),
        ("s3", "false", "2999-01-01 00:00:00", "p2", "l1", "2024-01-01 11:00:00", "r3"),
    ])
    assert project.compile() == 0
    sources = (project.dir / "models" / "bloomery" / "_bloomery_sources.yml").read_text()
    assert sources.count("- name: pos__sales") == 1
    project.dbt("build")
    flags = dict(project.query("select sale_id, _quality_flags from main.sale"))
    assert flags == {"s1": [], "s2": ["real_sale"]}
    assert project.query("select _source_row_id, failed_rules from main.sale__reject") == [("r3", ["not_in_future"])]
    assert sorted(r[0] for r in project.query("select shop_id from main.shop")) == ["p1", "p2"]


def test_two_freshness_policies_for_one_bronze_relation_are_refused(tmp_path, capsys):
    root = specs(tmp_path, SHOPS.replace("warn_after: 1d", "warn_after: 2d"))
    assert bloomery_main(["check", "--specs", str(root)]) == 1
    err = capsys.readouterr().err
    assert "shops.yaml" in err and "GuardrailError" in err and "one freshness" in err


PARENT_MODEL = """\
spec_version: 1
entities:
  account:
    grain: one row per account
    key: [account_id]
    fields: {account_id: {type: string}, region: {type: string}}
  txn:
    grain: one row per transaction
    key: [txn_id]
    fields: {txn_id: {type: string}, account_id: {type: string}, amount: {type: int}}
    quarantine: {retention: 52w}
    quality:
      - {rule: referential, via: txn_account, on_missing: unknown_member}
relationships:
  - {name: txn_account, from: txn, to: account, via: {account_id: account_id}, cardinality: many_to_one}
coverage:
  - {name: every_account_trades, relationship: txn_account, on_fail: flag}
reconcile:
  - {name: txns_per_account, left: "count(txn.txn_id) by account_id", right: "count(account.account_id) by account_id", tolerance: "0", on_fail: flag}
"""


def test_an_unknown_member_in_a_parent_without_ingestion_metadata(tmp_path):
    """The parent has no `_source_row_id`: its Unknown member is told by its key, in the coverage
    check, the reconcile check and the mart."""
    root = tmp_path / "specs"
    root.mkdir()
    (root / "model.yaml").write_text(PARENT_MODEL)
    (root / "accounts.yaml").write_text("mapping_version: 1\nsource: core__accounts\ntarget: account\n"
                                        "key: {account_id: {from: \"$.id\"}}\nfields: {region: {from: \"$.region\"}}\n")
    (root / "txns.yaml").write_text("mapping_version: 1\nsource: core__txns\ntarget: txn\nkey: {txn_id: {from: \"$.id\"}}\n"
                                    "fields:\n  account_id: {from: \"$.account\"}\n  amount: {from: \"$.amount\", transform: [to_int]}\n"
                                    "unmapped: [\"$._load_id\", \"$._ingested_at\", \"$._source_row_id\"]\n")
    project = DuckProject(tmp_path, root)
    project.write_bronze("core__accounts", ["id", "region"], [("a1", "eu"), ("a2", "us")])
    meta = ("l1", "2024-01-01 00:00:00")
    project.write_bronze("core__txns", ["id", "account", "amount", "_load_id", "_ingested_at", "_source_row_id"],
                         [("t1", "a1", "5", *meta, "r1"), ("t2", "zz", "7", *meta, "r2")])
    assert project.compile() == 0
    result = project.dbt("build")
    assert result.statuses["every_account_trades_coverage"] == "warn"     # a2 has no transaction
    assert project.query("select account_id from main.txn where txn_id = 't2'") == [("__unknown__",)]
    stored = project.query("select * from main.txns_per_account__reconcile where not within_tolerance")
    # a2 has no transaction; the orphan is on the left only: the member row is no account
    assert sorted(r[0] for r in stored) == ["__unknown__", "a2"]
    evaluated = project.query("select rows_evaluated from main.mart_data_quality where entity = 'txn' and rule = '(entity)'")
    assert evaluated == [(2,)]
