"""The documentation keeps up with the schemas: every spec key is documented."""
import json
from pathlib import Path

from bloomery import spec_keys_doc as keys_doc

ROOT = Path(__file__).resolve().parents[2]


def _property_names(schema, out):
    if isinstance(schema, dict):
        for key, sub in schema.get("properties", {}).items():
            out.add(key)
            _property_names(sub, out)
        for value in schema.values():
            if isinstance(value, (dict, list)):
                _property_names(value, out)
    elif isinstance(schema, list):
        for item in schema:
            _property_names(item, out)
    return out


def test_spec_keys_reference_is_current():
    committed = (ROOT / "docs" / "spec-keys.md").read_text(encoding="utf-8")
    assert committed == keys_doc.render(), "run: python -m bloomery.spec_keys_doc > docs/spec-keys.md"


def test_every_schema_property_is_documented():
    text = (ROOT / "docs" / "spec-keys.md").read_text(encoding="utf-8")
    for file in sorted((ROOT / "schemas").glob("*.json")):
        for name in _property_names(json.loads(file.read_text()), set()):
            assert f".{name}`" in text or f"`{name}`" in text or f".{name}." in text or f"`{name}." in text, \
                f"{file.name}: `{name}` is not in docs/spec-keys.md"
