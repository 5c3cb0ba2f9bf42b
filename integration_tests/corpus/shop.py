"""Dirty bronze for the shop specs, one row per case, each with the outcome it must have.

`expect` is one of:
  ("entity", [flags])         kept, with exactly these `_quality_flags`
  ("reject", [failed_rules])  diverted, with exactly these `failed_rules`
  ("deduped",)                lost dedupe to a better delivery of its key
or, where the outcome is a property of the engine, {"duckdb": expect, "postgres": expect, "spark": expect}
(each such row is a line of the dialect matrix, docs/dialects.md).
Rows are written as text, as a loader would land them.
"""
import json

META = ["_load_id", "_ingested_at", "_source_row_id"]


def _item(ref, line, sku="ABC-123", qty="2", price="12.50", discount="1.00", **extra):
    doc = {"OrderRef": ref, "Line": line, "Sku": sku, "Qty": qty, "Price": price, "Discount": discount}
    doc.update(extra)
    return json.dumps({k: v for k, v in doc.items() if v is not None})


CUSTOMERS = {
    "columns": ["id", "email", "country", "signup", "notes"] + META,
    "rows": [
        # (values..., expect)
        ((" C1 ", "Ann@Example.com", "de", "2021-03-04", "vip", "l1", "2024-01-01 00:00:00", "c-1"), ("entity", [])),
        (("C2", "no-at-sign", "fr", "2021-03-05", None, "l1", "2024-01-01 00:00:00", "c-2"), ("entity", ["email_pattern"])),
        (("C3", "c3@example.com", "DEU", "2021-03-06", None, "l1", "2024-01-01 00:00:00", "c-3"), ("reject", ["country_length"])),
        (("C4", "c4@example.com", "nl", "2021-02-30", "card 4111", "l1", "2024-01-01 00:00:00", "c-4"), ("reject", ["signed_up_on_coercible"])),
        # three deliveries of C5: the latest wins
        (("C5", "old@example.com", "be", "2021-01-01", None, "l1", "2024-01-01 00:00:00", "c-5a"), ("deduped",)),
        (("C5", "new@example.com", "be", "2021-01-01", None, "l2", "2024-01-02 00:00:00", "c-5b"), ("entity", [])),
        (("C5", "mid@example.com", "be", "2021-01-01", None, "l1", "2024-01-01 12:00:00", "c-5c"), ("deduped",)),
        # a recency tie, broken by _load_id (descending), then _source_row_id
        (("C6", "a@example.com", "at", "2021-01-01", None, "l1", "2024-01-03 00:00:00", "c-6a"), ("deduped",)),
        (("C6", "b@example.com", "at", "2021-01-01", None, "l2", "2024-01-03 00:00:00", "c-6b"), ("entity", [])),
        # NULL is not a failed cast; an empty string is
        (("C7", "c7@example.com", "it", None, None, "l1", "2024-01-01 00:00:00", "c-7"), ("entity", [])),
        (("C8", "c8@example.com", "it", "", None, "l1", "2024-01-01 00:00:00", "c-8"), ("reject", ["signed_up_on_coercible"])),
        # a corrupt latest delivery is quarantined, never silently replaced by the older clean one
        (("C9", "c9@example.com", "es", "2021-01-01", None, "l1", "2024-01-01 00:00:00", "c-9a"), ("deduped",)),
        (("C9", "bad mail", "ESP", "2021-01-01", None, "l2", "2024-01-02 00:00:00", "c-9b"), ("reject", ["country_length", "email_pattern"])),
        # oversized value, capitals and spaces around the key
        (("  c10  ", "X@Y.ORG", "pt", "2021-12-31", "x" * 5000, "l1", "2024-01-01 00:00:00", "c-10"), ("entity", [])),
    ],
}

ORDERS = {
    "columns": ["order_ref", "customer", "state", "created"] + META,
    "rows": [
        (("O1", "C1", "Placed", "2023-05-01T10:00:00", "l1", "2024-01-05 00:00:00", "o-1"), ("entity", [])),
        (("O2", "C2", "shipped", "2023-05-02T10:00:00", "l1", "2024-01-05 00:00:00", "o-2"), ("entity", [])),
        (("O3", "C1", "cancelled", "2023-05-03T10:00:00", "l1", "2024-01-05 00:00:00", "o-3"), ("reject", ["status_in_enum"])),
        (("O4", "C404", "new", "2023-05-04T10:00:00", "l1", "2024-01-05 00:00:00", "o-4"), ("reject", ["order_of_customer_referential"])),
        # the customer exists in bronze but is quarantined: a parent is judged by its admitted rows only
        (("O5", "C3", "done", "2023-05-05T10:00:00", "l1", "2024-01-05 00:00:00", "o-5"), ("reject", ["order_of_customer_referential"])),
        (("O6", "C1", "sent", None, "l1", "2024-01-05 00:00:00", "o-6"), ("reject", ["ordered_at_not_null"])),
        (("O7", "C1", "sent", "2014-12-31T00:00:00", "l1", "2024-01-05 00:00:00", "o-7"), ("entity", ["ordered_at_range_min"])),
        (("O8", "C1", "sent", "31/12/2023", "l1", "2024-01-05 00:00:00", "o-8"), ("reject", ["ordered_at_coercible", "ordered_at_not_null"])),
        (("O9", None, "sent", "2023-05-09T10:00:00", "l1", "2024-01-05 00:00:00", "o-9"), ("entity", [])),
        (("O10", "", "sent", "2023-05-10T10:00:00", "l1", "2024-01-05 00:00:00", "o-10"), ("reject", ["order_of_customer_referential"])),
        (("O11", "c1", "placed", "2023-05-11T10:00:00", "l1", "2024-01-05 00:00:00", "o-11"), ("reject", ["order_of_customer_referential"])),
        (("O12", "C1", "Placedd", "2023-05-12T10:00:00", "l1", "2024-01-05 00:00:00", "o-12"), ("reject", ["status_in_enum"])),
        # clock words: Postgres reads them as the transaction time; its guarded cast refuses them, so
        # the cell is a coercion failure on every engine rather than a value that changes each run
        (("O13", "C1", "sent", "now", "l1", "2024-01-05 00:00:00", "o-13"), ("reject", ["ordered_at_coercible", "ordered_at_not_null"])),
        (("O14", "C1", "sent", " Yesterday ", "l1", "2024-01-05 00:00:00", "o-14"), ("reject", ["ordered_at_coercible", "ordered_at_not_null"])),
        # a timestamp is read in one ISO 8601 shape on every engine (bloomery.text_to_timestamp): a
        # special word, month-first text and a compact date are coercion failures everywhere (the
        # engines' own readers differ on each: DuckDB and Postgres read `epoch`, Postgres the other two)
        (("O15", "C1", "sent", "epoch", "l1", "2024-01-05 00:00:00", "o-15"), ("reject", ["ordered_at_coercible", "ordered_at_not_null"])),
        (("O16", "C1", "sent", "05/16/2023 10:00", "l1", "2024-01-05 00:00:00", "o-16"), ("reject", ["ordered_at_coercible", "ordered_at_not_null"])),
        (("O17", "C1", "sent", "20230517", "l1", "2024-01-05 00:00:00", "o-17"), ("reject", ["ordered_at_coercible", "ordered_at_not_null"])),
        # an offset is converted to UTC, never dropped: 12:00+05:00 is 07:00 (kept: ordered_at is checked in the tests)
        (("O18", "C1", "sent", "2023-05-18T12:00:00+05:00", "l1", "2024-01-05 00:00:00", "o-18"), ("entity", [])),
    ],
}

ORDER_ITEMS = {
    "columns": ["payload"] + META,
    "rows": [
        ((_item("O1", "1", sku="abc-123"), "l1", "2024-01-06 00:00:00", "i-1"), ("entity", [])),
        ((_item("O1", "2", price="12,50 €"), "l1", "2024-01-06 00:00:00", "i-2"), ("reject", ["unit_price_coercible"])),
        ((_item("O1", "3", qty="0", discount="0"), "l1", "2024-01-06 00:00:00", "i-3"), ("reject", ["quantity_range_min"])),
        ((_item("O1", "4", price="2000000"), "l1", "2024-01-06 00:00:00", "i-4"), ("entity", ["unit_price_range_max"])),
        ((_item("O2", "1", discount="100"), "l1", "2024-01-06 00:00:00", "i-5"), ("entity", ["discount_not_exceeding_gross"])),
        ((_item("O999", "1"), "l1", "2024-01-06 00:00:00", "i-6"), ("entity", ["item_of_order_referential"])),
        ((_item("O2", "2", sku="ab-1"), "l1", "2024-01-06 00:00:00", "i-7"), ("reject", ["sku_pattern"])),
        ((_item("O2", "x"), "l1", "2024-01-06 00:00:00", "i-8"), ("reject", ["line_no_coercible"])),
        ((_item("O2", "3", qty="1"), "l1", "2024-01-06 00:00:00", "i-9a"), ("deduped",)),
        ((_item("O2", "3", qty="-1", discount="0"), "l2", "2024-01-07 00:00:00", "i-9b"),
         ("reject", ["discount_not_exceeding_gross", "quantity_range_min"])),  # a diverted row records its flags too
        ((_item("O3", "1"), "l1", "2024-01-06 00:00:00", "i-11"), ("entity", ["item_of_order_referential"])),
        ((_item("O2", "4", discount=None), "l1", "2024-01-06 00:00:00", "i-12"), ("entity", [])),
        ((_item("O2", "5", price="-1", discount=None), "l1", "2024-01-06 00:00:00", "i-13"), ("reject", ["unit_price_range_min"])),
        ((_item("O1", "5", price="abc", qty="zz"), "l1", "2024-01-06 00:00:00", "i-14"), ("reject", ["quantity_coercible", "unit_price_coercible"])),
    ],
}

BRONZE = {"crm__customers": CUSTOMERS, "shop__orders": ORDERS, "shop__order_items": ORDER_ITEMS}
ENTITY_OF = {"crm__customers": "customer", "shop__orders": "order", "shop__order_items": "order_item"}
