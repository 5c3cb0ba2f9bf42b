"""The corpus assertions, written once and run on every engine.

test_shop.py and test_catalogue.py subclass these classes with module fixtures parametrized by
engine: `built` (the corpus built once per engine) and, for the catalogue, `new_project` (a
callable: tmp path -> unbuilt project with the catalogue specs). Where a row's outcome is a
property of the engine, the corpus says so per engine (`outcome(expect, engine)`) and the check
asserts that engine's expectation: nothing here is skipped on one engine.
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
from collections import Counter
from decimal import Decimal

import pytest

from .harness import INTEGRATION

sys.path.insert(0, str(INTEGRATION))
from corpus import shop  # noqa: E402

CATALOGUE = INTEGRATION / "corpus" / "catalogue"


def _load(name: str, path):
    """A corpus module under a name of its own: several corpora call their module `bronze`."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


catalogue = _load("bloomery_corpus_catalogue", CATALOGUE / "bronze.py")


def outcome(expect, engine: str) -> tuple:
    """The expected outcome of a corpus row on `engine`."""
    return expect[engine] if isinstance(expect, dict) else expect


def as_json(value):
    """A JSON column as Python: DuckDB hands back text, psycopg2 the parsed value."""
    return json.loads(value) if isinstance(value, str) else value


def load_shop(project, extra_customers=()):
    for table, spec in shop.BRONZE.items():
        rows = [values for values, _ in spec["rows"]]
        if table == "crm__customers":
            rows += list(extra_customers)
        project.write_bronze(table, spec["columns"], rows)


def load_batches(project, loads, append=False, extra_orders=()):
    """Land the shop corpus's rows of the load ids in `loads` (appended when `append`), with
    `extra_orders` added to shop__orders."""
    for table, spec in shop.BRONZE.items():
        rows = [v for v, _ in spec["rows"] if v[-3] in loads]
        if table == "shop__orders":
            rows += list(extra_orders)
        project.write_bronze(table, spec["columns"], rows, append=append)


def table_multisets(project, entities, rejects: str) -> dict:
    """Each entity's table, and its reject table as the query `rejects` reads it (`{e}`: the entity),
    as multisets of rows: equal when two builds wrote the same rows in any order."""
    out = {}
    for e in entities:
        out[e] = Counter(map(repr, project.query(f'select * from main."{e}"')))
        out[e + "__reject"] = Counter(map(repr, project.query(rejects.format(e=e))))
    return out


def build_batches(project, *batches):
    """Land each batch of load ids in turn (the later ones appended) and build after each, the
    project compiled once the first is landed: the project, built."""
    for n, loads in enumerate(batches):
        load_batches(project, loads, append=n > 0)
        if n == 0:
            assert project.compile() == 0
        project.dbt("build")
    return project


def assert_rows_land(kept: dict, rejected: dict, corpus_rows, row_id_of, engine: str, where: str):
    """Every corpus row is where its expected outcome on `engine` says, with exactly its flags."""
    for values, expect in corpus_rows:
        row_id = row_id_of(values)
        place, *flags = outcome(expect, engine)
        flags = flags[0] if flags else None
        if place == "entity":
            assert row_id in kept, f"{row_id} should be in {where} on {engine}"
            assert row_id not in rejected or rejected[row_id]["resolved_at"] is not None, row_id
            assert list(kept[row_id]["_quality_flags"]) == flags, (row_id, engine)
            assert kept[row_id]["_quality_ok"] == (not flags), row_id
        elif place == "reject":
            assert row_id in rejected, f"{row_id} should be quarantined on {engine}"
            assert row_id not in kept, row_id
            assert list(rejected[row_id]["failed_rules"]) == flags, (row_id, engine)
            assert rejected[row_id]["resolved_at"] is None, row_id
        else:
            assert row_id not in kept and row_id not in rejected, f"{row_id} should be deduped on {engine}"


class ShopChecks:
    """The shop corpus end to end: every bronze row lands where its expected disposition says."""

    @staticmethod
    def _by_row_id(project, relation):
        return {r["_source_row_id"]: r for r in project.rows(f'select * from main."{relation}"')}

    @pytest.mark.parametrize("table", sorted(shop.BRONZE))
    def test_every_row_lands_where_expected(self, built, table):
        entity = shop.ENTITY_OF[table]
        assert_rows_land(self._by_row_id(built, entity), self._by_row_id(built, entity + "__reject"),
                         shop.BRONZE[table]["rows"], lambda v: v[-1], built.engine, entity)

    def test_conservation_per_entity(self, built):
        for table, spec in shop.BRONZE.items():
            entity = shop.ENTITY_OF[table]
            expected = Counter(outcome(expect, built.engine)[0] for _, expect in spec["rows"])
            # bronze rows only: a parent entity also holds the reserved Unknown member
            kept = built.query(f'select count(*) from main."{entity}" where _source_row_id is not null')[0][0]
            rejected = built.query(f'select count(*) from main."{entity}__reject" where resolved_at is null')[0][0]
            bronze = built.query(f'select count(*) from main."{table}"')[0][0]
            assert (kept, rejected) == (expected["entity"], expected["reject"])
            assert bronze == kept + rejected + expected["deduped"]

    def test_mart_rule_counts_equal_counts_from_the_corpus(self, built):
        """Each rule's rows_failed in the mart is how many surviving rows fired it (engines count
        flag names differently: an unnest where the engine has one, a membership test elsewhere)."""
        mart = built.rows("select entity, rule, rows_failed from main.mart_data_quality where rule <> '(entity)'")
        for table, spec in shop.BRONZE.items():
            entity = shop.ENTITY_OF[table]
            outcomes = [outcome(expect, built.engine) for _, expect in spec["rows"]]
            failed = Counter(name for e in outcomes if e[0] != "deduped" for name in e[1])
            counted = {r["rule"]: r["rows_failed"] for r in mart if r["entity"] == entity}
            assert counted == {rule: failed.get(rule, 0) for rule in counted}, entity
            assert set(failed) <= set(counted), "every fired rule has a mart row"

    def test_offset_timestamp_is_converted_to_utc(self, built):
        """`parse_ts: ISO8601` reads an offset: 12:00+05:00 is 07:00 UTC on every engine, never 12:00."""
        rows = built.query("select cast(ordered_at as varchar) from main.\"order\" where _source_row_id = 'o-18'")
        assert rows == [("2023-05-18 07:00:00",)]

    def test_unknown_member_rewrites_orphan_keys(self, built):
        rows = built.rows("select order_id, _source_row_id from main.order_item where _source_row_id in ('i-6', 'i-11')")
        assert {r["order_id"] for r in rows} == {"__unknown__"}

    def test_reject_row_contract(self, built):
        row = built.rows("select * from main.customer__reject where _source_row_id = 'c-4'")[0]
        assert list(row) == ["reject_id", "source_relation", "mapping", "mapping_version", "failed_rules", "key_values",
                             "raw", "_load_id", "_ingested_at", "_source_row_id", "first_seen", "last_seen",
                             "resolved_at", "last_evaluated_at"]
        src = "crm__customers"
        text = f"S{len(src)}:{src}S{len('c-4')}:c-4"
        assert row["reject_id"] == hashlib.sha256(text.encode()).hexdigest()
        assert row["mapping"] == "crm__customers->customer"
        raw = as_json(row["raw"])
        assert "notes" not in raw, "redacted column must not reach the reject table"
        assert raw["signup"] == "2021-02-30" and raw["id"] == "C4"
        assert list(raw) == sorted(raw)
        assert as_json(row["key_values"]) == {"customer_id": "C4"}

    def test_same_load_twice_changes_nothing(self, built):
        tables = ("customer", "order", "order_item", "customer__reject", "order__reject", "order_item__reject")
        before = {t: sorted(map(repr, built.query(f'select * from main."{t}"'))) for t in tables}
        built.dbt("build")
        after = {t: sorted(map(repr, built.query(f'select * from main."{t}"'))) for t in tables}
        assert before == after


class CatalogueChecks:
    """Every field rule and transform, plus an entity outside the quality system."""

    def test_every_row_lands_where_expected(self, built):
        kept = {r["_source_row_id"]: r for r in built.rows("select * from main.product")}
        rejected = {r["_source_row_id"]: r for r in built.rows("select * from main.product__reject")}
        index = catalogue.COLUMNS.index("_source_row_id")
        assert_rows_land(kept, rejected, catalogue.PRODUCTS, lambda v: v[index], built.engine, "product")

    def test_transform_values(self, built):
        p1 = built.rows("select * from main.product where _source_row_id = 'p-1'")[0]
        assert p1["sku"] == "P1"
        assert p1["category"] == "tools"
        assert p1["size_code"] == "M"
        assert p1["price_cents"] == 1999
        assert p1["weight_kg"] == Decimal("1.500")
        assert p1["active"] is True
        assert str(p1["launched_on"]) == "2021-03-15"
        assert str(p1["updated_at"]) == "2024-01-01 09:00:00"  # Paris 10:00 in winter is 09:00 UTC
        assert p1["rating"] == 4
        assert p1["discount_pct"] == Decimal("12.30")
        assert p1["code"] == "AB"

        def value(row_id, column):
            return built.rows(f"select {column} from main.product where _source_row_id = '{row_id}'")[0][column]
        assert value("p-23", "rating") == 3
        assert value("p-7", "size_code") == ""                     # split_part out of range, both engines
        assert value("p-27", "weight_kg") == Decimal("1.500")      # ' 1.5e3 ': both trim and read the exponent
        assert str(value("p-28", "launched_on")) == "2021-03-01"   # ' 1/3/2021 ' under %d/%m/%Y
        if built.engine == "duckdb":
            assert value("p-19", "code") == ""                     # regexp_extract: no match is ''
            assert value("p-26", "active") is None                 # 'on' is no boolean (flagged, kept)
        elif built.engine == "spark":
            assert value("p-19", "code") == ""                     # regexp_extract: no match is ''
            assert value("p-26", "active") is None                 # 'on' is no boolean (flagged, kept)
        else:
            assert value("p-19", "code") is None                   # regexp_substr: no match is NULL
            assert value("p-26", "active") is True                 # 'on' is true

    def test_redacted_column_never_reaches_raw(self, built):
        for r in built.rows("select raw from main.product__reject"):
            assert "secret" not in as_json(r["raw"])

    def test_identifiers_are_quoted(self, built):
        rows = built.rows('select "group_id", "DisplayName", member_count, _quality_flags, _quality_ok '
                          'from main."group" order by 1')
        assert [(r["group_id"], r["DisplayName"], r["member_count"]) for r in rows] == [("g1", "Admins", 3),
                                                                                       ("g2", "Readers", 120)]
        assert all(list(r["_quality_flags"]) == [] and r["_quality_ok"] for r in rows)

    def test_entity_outside_quality_keeps_produce_or_raise(self, new_project, tmp_path):
        project = new_project(tmp_path, groups=catalogue.GROUPS + [("g3", "Bad", "lots")])
        result = project.dbt("build", "--select", "group__staged", check=False)
        assert not result.success
        assert result.statuses["group__staged"] == "error"

    def test_asserts_warn_but_never_route(self, built):
        # p-8 has price -5 (quarantined: never published), p-1 barcode passes; asserts only warn
        result = built.dbt("test", "--select", "product", check=False)
        # code '' (p-19, DuckDB) is not AB or CD; Postgres extracts NULL there, which accepted_values ignores
        assert result.statuses["product_code_enum"] == {"duckdb": "warn", "postgres": "pass", "spark": "warn"}[built.engine]
        assert result.statuses["product_name_not_null_assert"] == "pass"
        assert result.statuses["product_price_cents_min"] == "pass"

    def test_fail_rule_blocks_the_entity(self, new_project, tmp_path):
        extra = [catalogue.row(90, None, name=None)]
        project = new_project(tmp_path, products=catalogue.PRODUCTS + extra)
        result = project.dbt("build", check=False)
        assert result.statuses["product_name_not_null"] == "fail"
        for node in ("product", "product__reject", "product__quality"):
            assert result.statuses[node] == "skipped", node


def catalogue_project(project, products=catalogue.PRODUCTS, groups=catalogue.GROUPS):
    """Write the catalogue's bronze into a fresh project and compile its specs."""
    project.write_bronze("pim__products", catalogue.COLUMNS, [v for v, _ in products])
    project.write_bronze("crm__groups", catalogue.GROUPS_COLUMNS, groups)
    assert project.compile() == 0
    return project
