"""Referential rules on DuckDB: every kind of orphan under unknown_member, quarantine and flag."""
from __future__ import annotations

import sys
from decimal import Decimal

import pytest

from .harness import INTEGRATION, DuckProject

CORPUS = INTEGRATION / "corpus" / "referential"
sys.path.insert(0, str(CORPUS))
import bronze as ref_bronze  # noqa: E402

pytestmark = pytest.mark.duckdb


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    project = DuckProject(tmp_path_factory.mktemp("referential"), specs=CORPUS / "specs")
    project.write_bronze("crm__accounts", ref_bronze.ACCOUNTS_COLUMNS, ref_bronze.ACCOUNTS)
    for kind in ("um", "q", "f"):
        project.write_bronze(f"pay__payments_{kind}", ref_bronze.PAYMENTS_COLUMNS, [v for v, _ in ref_bronze.PAYMENTS])
    assert project.compile() == 0
    project.dbt("build")
    return project


def _by_id(project, sql):
    return {r["_source_row_id"]: r for r in project.rows(sql)}


def test_unknown_member(built):
    kept = _by_id(built, "select * from main.payment_um")
    assert set(kept) == {v[-1] for v, _ in ref_bronze.PAYMENTS}, "unknown_member keeps every row"
    for values, orphan in ref_bronze.PAYMENTS:
        row = kept[values[-1]]
        assert list(row["_quality_flags"]) == (["payment_um_account_referential"] if orphan else []), values
        expected_fk = "__unknown__" if orphan else values[1]
        assert row["account_id"] == expected_fk, values


def test_quarantine(built):
    kept = _by_id(built, "select * from main.payment_q")
    rejected = _by_id(built, "select * from main.payment_q__reject")
    for values, orphan in ref_bronze.PAYMENTS:
        rid = values[-1]
        if orphan:
            assert rid in rejected and rid not in kept
            assert list(rejected[rid]["failed_rules"]) == ["payment_q_account_referential"]
        else:
            assert rid in kept and rid not in rejected
            assert kept[rid]["account_id"] == values[1]


def test_flag(built):
    kept = _by_id(built, "select * from main.payment_f")
    for values, orphan in ref_bronze.PAYMENTS:
        row = kept[values[-1]]
        assert list(row["_quality_flags"]) == (["payment_f_account_referential"] if orphan else [])
        assert row["account_id"] == values[1], "flag never rewrites the key"


def test_revenue_through_the_parent_is_complete_under_unknown_member(built):
    bronze_total = sum(Decimal(v[2]) for v, _ in ref_bronze.PAYMENTS)
    joined = built.query("select sum(p.amount) from main.payment_um p join main.account a using (account_id)")[0][0]
    null_fk = sum(Decimal(v[2]) for v, _ in ref_bronze.PAYMENTS if v[1] is None)
    assert joined + null_fk == bronze_total
    assert built.query("select count(*) from main.account where account_id = '__unknown__'")[0][0] == 1


def test_a_cycle_of_referential_rules_builds_without_a_dbt_cycle(tmp_path):
    """Walking entities in name order, `team`'s rule on `person` closes the cycle: it reads person
    as the previous run published it (nothing on the first run), person reads team by ref."""
    specs = INTEGRATION / "corpus" / "cycle" / "specs"
    project = DuckProject(tmp_path, specs=specs)
    meta = ("l1", "2024-01-01 00:00:00")
    project.write_bronze("hr__people", ["id", "team", "_load_id", "_ingested_at", "_source_row_id"],
                         [("U1", "T1", *meta, "u-1"), ("U2", "T9", *meta, "u-2")])
    project.write_bronze("hr__teams", ["id", "lead", "_load_id", "_ingested_at", "_source_row_id"],
                         [("T1", "U1", *meta, "t-1")])
    assert project.compile() == 0
    staged = (project.dir / "models" / "bloomery" / "team__staged.sql").read_text()
    assert "bloomery.published_relation(\"person\")" in staged and "ref(\"team\")" in \
        (project.dir / "models" / "bloomery" / "person__staged.sql").read_text()
    project.dbt("build")
    people = {r["person_id"]: list(r["_quality_flags"]) for r in project.rows("select * from main.person")}
    assert people == {"U1": [], "U2": ["person_team_referential"]}
    assert project.rows("select * from main.team")[0]["_quality_flags"] == ["team_lead_referential"]
    project.dbt("build", "--full-refresh")   # now person is published: the lead is found
    assert list(project.rows("select * from main.team")[0]["_quality_flags"]) == []
