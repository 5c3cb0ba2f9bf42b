"""The shop corpus end to end on DuckDB: every bronze row lands where its expected disposition says."""
from __future__ import annotations

import sys
from collections import Counter

import pytest

from .harness import INTEGRATION, DuckProject

sys.path.insert(0, str(INTEGRATION))
from corpus import shop  # noqa: E402

pytestmark = pytest.mark.duckdb


def load_corpus(project: DuckProject, only_load: str | None = None):
    for table, spec in shop.BRONZE.items():
        rows = [values for values, _ in spec["rows"] if only_load is None or values[-3] == only_load]
        project.write_bronze(table, spec["columns"], rows)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    project = DuckProject(tmp_path_factory.mktemp("shop"))
    load_corpus(project)
    assert project.compile() == 0
    project.dbt("build")
    return project


def _entity_rows(project, entity):
    return {r["_source_row_id"]: r for r in project.rows(f'select * from main."{entity}"')}


def _reject_rows(project, entity):
    return {r["_source_row_id"]: r for r in project.rows(f'select * from main."{entity}__reject"')}


@pytest.mark.parametrize("table", sorted(shop.BRONZE))
def test_every_row_lands_where_expected(built, table):
    entity = shop.ENTITY_OF[table]
    kept, rejected = _entity_rows(built, entity), _reject_rows(built, entity)
    for values, expect in shop.BRONZE[table]["rows"]:
        row_id = values[-1]
        where = expect[0]
        if where == "entity":
            assert row_id in kept, f"{row_id} should be in {entity}"
            assert row_id not in rejected or rejected[row_id]["resolved_at"] is not None
            assert list(kept[row_id]["_quality_flags"]) == expect[1], row_id
            assert kept[row_id]["_quality_ok"] == (not expect[1])
        elif where == "reject":
            assert row_id in rejected, f"{row_id} should be quarantined"
            assert row_id not in kept
            assert list(rejected[row_id]["failed_rules"]) == expect[1], row_id
            assert rejected[row_id]["resolved_at"] is None
        else:
            assert row_id not in kept and row_id not in rejected, f"{row_id} should be deduped"


def test_conservation_per_entity(built):
    for table, spec in shop.BRONZE.items():
        entity = shop.ENTITY_OF[table]
        expected = Counter(expect[0] for _, expect in spec["rows"])
        kept = built.query(f'select count(*) from main."{entity}"')[0][0]
        rejected = built.query(f'select count(*) from main."{entity}__reject" where resolved_at is null')[0][0]
        bronze = built.query(f'select count(*) from main."{table}"')[0][0]
        assert (kept, rejected) == (expected["entity"], expected["reject"])
        assert bronze == kept + rejected + expected["deduped"]


def test_unknown_member_rewrites_orphan_keys(built):
    rows = built.rows('select order_id, _source_row_id from main.order_item where _source_row_id in (\'i-6\', \'i-11\')')
    assert {r["order_id"] for r in rows} == {"__unknown__"}


def test_reject_row_contract(built):
    row = built.rows("select * from main.customer__reject where _source_row_id = 'c-4'")[0]
    assert list(row) == ["reject_id", "source_relation", "mapping", "mapping_version", "failed_rules", "key_values",
                         "raw", "_load_id", "_ingested_at", "_source_row_id", "first_seen", "last_seen",
                         "resolved_at", "last_evaluated_at"]
    import hashlib
    src = "crm__customers"
    text = f"S{len(src)}:{src}S{len('c-4')}:c-4"
    assert row["reject_id"] == hashlib.sha256(text.encode()).hexdigest()
    assert row["mapping"] == "crm__customers->customer"
    import json
    raw = json.loads(row["raw"])
    assert "notes" not in raw, "redacted column must not reach the reject table"
    assert raw["signup"] == "2021-02-30" and raw["id"] == "C4"
    assert list(raw) == sorted(raw)
    assert json.loads(row["key_values"]) == {"customer_id": "C4"}


def test_same_load_twice_changes_nothing(built):
    before = {t: sorted(map(repr, built.query(f'select * from main."{t}"')))
              for t in ("customer", "order", "order_item", "customer__reject", "order__reject", "order_item__reject")}
    built.dbt("build")
    after = {t: sorted(map(repr, built.query(f'select * from main."{t}"'))) for t in before}
    assert before == after
