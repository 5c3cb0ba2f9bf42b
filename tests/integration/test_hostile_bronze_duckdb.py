"""Bad bronze data never aborts a quality-carrying entity. Every cell of the shop corpus's bronze
relations gets hostile text: megabyte strings, emoji, right-to-left marks, combining marks,
control characters (never NUL), numbers with exponents or beyond every type, blanks, NaN and
Infinity, JSON where text is expected, and payloads that are not JSON at all or are very long or
deeply nested. `dbt build` succeeds, every bronze row is in the entity or unresolved in the reject
table (each row has a key of its own, so none is deduped), the audits pass, and a payload that does
not parse is quarantined as a coercion failure rather than kept with NULLs. Replay re-judges the
same rows without aborting either.
"""
from __future__ import annotations

import json
import sys

import pytest

from .harness import INTEGRATION, DuckProject

sys.path.insert(0, str(INTEGRATION))
from corpus import shop  # noqa: E402

pytestmark = pytest.mark.duckdb

MEGA = "x" * 1_000_000
HOSTILE = [
    MEGA, "😀👍🏽 ünïcödé", "\u202eevil\u202c", "e\u0301", "\ufeffbom", "\u2028line", "\x01\x02\x1b[31m", "\t\n\r",
    "\x7f", "1e308", "1e400", "-1E-5", "1e-400", "   ", "", "NaN", "nan", "Infinity", "-Infinity", "+inf",
    "9" * 400, "-0", "0x1F", "１２", "१२३", "'", '"', "\\", "{}", "[]", "null", "true",
    "2024-02-30T25:61:61", "0000-00-00", "12,50 €", "DROP TABLE customer; --",
]
META = ("h1", "2024-01-10 00:00:00")
NOT_JSON = ["not json", "{", "[1, 2", '{"OrderRef": "\\ud83d", "Line": "1"}', "[" * 5000, "'single'", "{'a': 1}", ""]
ODD_JSON = [
    "[" * 2000 + "]" * 2000, "123", "null", '"text"', '{"OrderRef": 1e400, "Line": 1e400}',
    '{"OrderRef": ["a"], "Line": {"x": 1}}', '{"OrderRef": "OD", "OrderRef": "OE", "Line": "7"}',
    json.dumps({"OrderRef": "OBIG", "Line": "1", "Sku": MEGA, "Pad": [MEGA[:1000]] * 500}),
]


def bronze() -> dict[str, list[tuple]]:
    customers, orders, items = [], [], []
    for i, h in enumerate(HOSTILE):
        customers.append((f"H{i}", h, h, h, h, *META, f"c-h{i}"))
        orders.append((f"OH{i}", h, h, h, *META, f"o-h{i}"))
        items.append((json.dumps({"OrderRef": f"OH{i}", "Line": h, "Sku": h, "Qty": h, "Price": h, "Discount": h}),
                      *META, f"i-h{i}"))
    # hostile keys: distinct after the mapping's trim
    for i, h in enumerate(h for h in HOSTILE if h.strip(" ") and h not in ("-0",)):
        customers.append((h, "a@b.co", "de", "2020-01-01", None, *META, f"c-k{i}"))
        orders.append((h, "C1", "placed", "2023-05-01T10:00:00", *META, f"o-k{i}"))
    for i, doc in enumerate(NOT_JSON + ODD_JSON):
        items.append((doc, *META, f"i-j{i}"))
    return {"crm__customers": customers, "shop__orders": orders, "shop__order_items": items}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    project = DuckProject(tmp_path_factory.mktemp("hostile_bronze"))
    project.rows_written = bronze()
    for table, rows in project.rows_written.items():
        project.write_bronze(table, shop.BRONZE[table]["columns"], rows)
    assert project.compile() == 0
    project.result = project.dbt("build", check=False)
    return project


def placed(project):
    """Every bronze row is in exactly one place: the entity or an unresolved reject."""
    for table, rows in project.rows_written.items():
        e = shop.ENTITY_OF[table]
        kept = [r for (r,) in project.query(f'select _source_row_id from main."{e}" where _source_row_id is not null')]
        rejected = [r for (r,) in project.query(f'select _source_row_id from main."{e}__reject" where resolved_at is null')]
        assert len(kept) == len(set(kept)) and len(rejected) == len(set(rejected)), e
        assert set(kept) | set(rejected) == {r[-1] for r in rows}, f"{e}: rows in no place"
        assert not set(kept) & set(rejected), f"{e}: rows in two places"
        assert len(rows) == project.query(f'select count(*) from main."{table}"')[0][0]


def test_build_succeeds(built):
    failed = {k: v for k, v in built.result.statuses.items() if v not in ("success", "pass")}
    assert built.result.success, failed or built.result.exception


def test_every_row_lands(built):
    placed(built)


def test_an_unparsable_payload_is_a_coercion_failure(built):
    bad = {f"i-j{i}" for i in range(len(NOT_JSON))}
    rows = {r["_source_row_id"]: list(r["failed_rules"]) for r in built.rows(
        "select _source_row_id, failed_rules from main.order_item__reject where resolved_at is null")}
    for sid in bad:
        assert sid in rows and "order_id_coercible" in rows[sid], (sid, rows.get(sid))
    # every raw payload is kept exactly, malformed or not, for replay
    raw = {r[0]: json.loads(r[1])["payload"] for r in built.query("select _source_row_id, raw from main.order_item__reject")}
    items = {r[-1]: r[0] for r in built.rows_written["shop__order_items"]}
    assert all(raw[sid] == items[sid] for sid in raw)


def test_replay_rejudges_without_aborting(built):
    before = built.query("select count(*) from main.order_item__reject where resolved_at is null")
    for e in ("customer", "order", "order_item"):
        built.dbt("run-operation", "bloomery.replay", "--args", f"{{entity: {e}}}")
    assert built.query("select count(*) from main.order_item__reject where resolved_at is null") == before
    built.dbt("build")
    placed(built)


def json_path_specs(tmp_path):
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "model.yaml").write_text(
        "spec_version: 1\nentities:\n  item:\n    grain: one row per item\n    key: [item_id]\n"
        "    fields: {item_id: {type: string}, meta: {type: variant}, nested: {type: variant}}\n"
        "    quarantine: {retention: 30d}\n")
    (specs / "map.yaml").write_text(
        "mapping_version: 1\nsource: raw__items\ntarget: item\nkey: {item_id: {from: \"$.id\"}}\n"
        "fields:\n"
        "  meta:\n    from: \"$.payload\"\n    transform: [{json_path: \"$.a\"}]\n"
        "    quality: [{rule: not_null, on_fail: quarantine}]\n"
        "  nested: {from: \"$.doc\", transform: [{json_path: \"$.a\"}, {json_path: \"$.b\"}]}\n"
        "unmapped: [\"$._load_id\", \"$._ingested_at\", \"$._source_row_id\"]\n")
    return specs


def json_path_lands(project):
    """A `json_path` transform parses its input; a bronze text that is not JSON gives NULL, which
    the rules then judge (here `not_null`), instead of aborting the run."""
    columns = ["id", "payload", "doc", "_load_id", "_ingested_at", "_source_row_id"]
    project.write_bronze("raw__items", columns, [
        ("i1", '{"a": 1}', '{"a": {"b": 2}}', "l1", "2024-01-01 00:00:00", "r1"),
        ("i2", "{oops", '{"a": {"b": 2}}', "l1", "2024-01-01 00:00:00", "r2"),
        ("i3", '{"a": 1}', "not json", "l1", "2024-01-01 00:00:00", "r3"),
    ])
    assert project.compile() == 0
    project.dbt("build")
    kept = {r[0]: (r[1], r[2]) for r in project.query("select item_id, cast(meta as varchar), cast(nested as varchar) from main.item")}
    assert kept == {"i1": ("1", "2"), "i3": ("1", None)}
    assert [(r[0], list(r[1])) for r in project.query("select _source_row_id, failed_rules from main.item__reject")] == [("r2", ["meta_not_null"])]


def test_a_json_path_step_on_a_document_that_does_not_parse_gives_null(tmp_path):
    json_path_lands(DuckProject(tmp_path, json_path_specs(tmp_path)))
