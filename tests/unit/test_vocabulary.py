"""vocabulary.py is the one spelling of the reserved names: the JSON Schema that editors read
(schemas/, shipped as python/bloomery/schemas/) must refuse exactly those, and say so."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from bloomery.vocabulary import RESERVED

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("schema", ["schemas/entity_model.schema.json",
                                    "python/bloomery/schemas/entity_model.schema.json"])
def test_the_schema_reserves_the_vocabularys_names(schema):
    field_name = json.loads((ROOT / schema).read_text())["$defs"]["field_name"]
    refused = [s["not"]["enum"] for s in field_name["allOf"] if "enum" in s.get("not", {})]
    assert [set(r) for r in refused] == [set(RESERVED)]
    assert all(f"`{name}`" in field_name["description"] for name in RESERVED)
