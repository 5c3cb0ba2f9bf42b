"""Dirty bronze for the catalogue specs: one row per case, with the outcome it must have.

Expectations follow the mapping in specs/mapping_products.yaml; comments say why each lands where
it does. Where the outcome is a property of the engine, the expectation is a dict
{"duckdb": ..., "postgres": ..., "spark": ...}; those rows are lines of the dialect matrix (docs/dialects.md).
"""
META = ["_load_id", "_ingested_at", "_source_row_id"]
COLUMNS = ["sku", "name", "category", "size", "price", "weight_g", "active", "launched", "updated",
           "barcode", "rating", "discount", "code", "secret"] + META

BASE = {"sku": None, "name": "Widget", "category": "Tools", "size": "SKU-M", "price": "$1999 USD",
        "weight_g": "1500", "active": "true", "launched": "15/03/2021", "updated": "2024-01-01T10:00:00",
        "barcode": None, "rating": "4", "discount": "12.34", "code": "AB12", "secret": "s3cr3t",
        "_load_id": "l1", "_ingested_at": "2024-02-01 00:00:00", "_source_row_id": None}


def row(n, expect, **overrides):
    values = dict(BASE, sku=f" p{n} ", barcode=f"{4006381333000 + n}", _source_row_id=f"p-{n}")
    values.update(overrides)
    return tuple(values[c] for c in COLUMNS), expect


PRODUCTS = [
    row(1, ("entity", [])),
    row(2, ("reject", ["name_length"]), name=""),                          # empty is not NULL: length judges it
    row(3, ("entity", ["name_normalize"]), name="Cafe\u0301"),             # decomposed é is not NFC
    row(4, ("reject", ["name_charset"]), name="Bad\u0007Name"),            # control character
    row(5, ("reject", ["category_in_enum"]), category="Toys"),
    row(6, ("entity", ["size_code_in_set"]), category="hardware", size="SKU-XL"),
    row(7, ("entity", ["size_code_in_set"]), size="SKU"),                  # split_part out of range is '' on both engines
    row(8, ("reject", ["price_cents_range", "price_or_inactive"]), price="$-5 USD"),
    row(9, ("reject", ["price_cents_coercible"]), price="12,99"),          # expression sees NULL: silent
    row(10, ("reject", ["weight_kg_coercible"]), weight_g="heavy"),
    row(11, ("entity", ["active_coercible"]), active="maybe"),             # explicit coercible at flag
    row(12, ("reject", ["launched_on_coercible"]), launched="31/02/2021"),
    row(13, ("entity", ["launched_on_range_min"]), launched="01/01/1999"),
    row(14, ("reject", ["barcode_pattern"]), barcode="12345"),
    row(15, ("entity", ["barcode_unique"]), barcode="4006381333948"),
    row(16, ("entity", ["barcode_unique"]), barcode="4006381333948"),
    row(17, ("reject", ["rating_coercible"]), rating="five"),              # coalesce after the cast hides nothing
    row(18, ("reject", ["discount_pct_coercible"]), discount="999.99"),    # rounds to 1000.0: outgrows decimal(4,1)
    row(19, ("entity", []), code="12AB"),                                  # regex_extract's own NULL is silent
                                                                           # (no match: '' on DuckDB, NULL on Postgres)
    row(20, ("entity", []), price="$50 USD", active="false"),              # expression: inactive, so cheap is fine
    row(21, ("entity", ["price_or_inactive"]), price="$50 USD"),
    # dedupe orders by updated_at, not by ingestion: the later delivery of an older version loses
    row(22, ("entity", []), _source_row_id="p-22a", updated="2024-01-02T00:00:00"),
    row(22, ("deduped",), _source_row_id="p-22b", updated="2024-01-01T00:00:00", _ingested_at="2024-02-02 00:00:00",
        _load_id="l2"),
    row(23, ("entity", []), rating="-3"),                                  # abs
    # engine properties (docs/dialects.md): each engine's own cast decides
    row(24, ("reject", ["rating_coercible"]), rating="2.5"),              # a fraction into an int loses digits: a
                                                                           # failure on every engine (DuckDB rounded to 3)
    row(25, ("reject", ["discount_pct_coercible"]), discount="NaN"),        # no number of the one grammar: a
                                                                           # failure on every engine (PostgreSQL read NaN)
    row(26, {"duckdb": ("entity", ["active_coercible"]), "postgres": ("entity", []),
            "spark": ("entity", ["active_coercible"])}, active="on"),
    row(27, ("entity", []), weight_g=" 1.5e3 "),                           # both trim and read exponents: 1.500 kg
    # parse_format reads the same on both engines (Postgres: regex shape + guarded ISO cast)
    row(28, ("entity", []), launched=" 1/3/2021 "),                        # 2021-03-01: 1-2 digit fields, blanks around
    row(29, ("reject", ["launched_on_coercible"]), launched="2021-03-15"), # ISO text is not %d/%m/%Y
]

GROUPS_COLUMNS = ["id", "display", "members"]
GROUPS = [(" g1 ", "Admins", "3"), ("g2", "Readers", "120")]

BRONZE = {"pim__products": {"columns": COLUMNS, "rows": PRODUCTS}}
ENTITY_OF = {"pim__products": "product"}
