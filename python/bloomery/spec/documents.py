"""Finding spec files, telling their kind apart, and checking them against the JSON Schemas.

The schemas in `schemas/` are the one description of the v1 grammar: editors read them for
completion and hover text, and this module validates every document against them, turning each
jsonschema error into a located `SpecParseError` with a hint.
"""
from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

from ..errors import Location, SpecParseError
from .yaml_source import YamlDocument, format_path, load_yaml_file

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "schemas"

# version key -> (kind, schema file or None when the kind is refused in this project)
VERSION_KEYS = {
    "spec_version": ("entity_model", "entity_model.schema.json"),
    "mapping_version": ("mapping", "mapping.schema.json"),
    "catalog_version": ("catalog", "catalog.schema.json"),
    "metrics_version": ("metrics", None),
    "marts_version": ("marts", None),
    "steps_version": ("steps", None),
}

SPEC_SUFFIXES = (".yaml", ".yml")


@dataclass
class SpecDocument:
    kind: str
    yaml: YamlDocument

    @property
    def file(self) -> str:
        return self.yaml.file

    @property
    def value(self) -> Any:
        return self.yaml.value

    def at(self, *path, prefix: str = "") -> Location:
        return self.yaml.location(tuple(path), prefix)


@lru_cache(maxsize=None)
def validator(schema_file: str) -> Draft202012Validator:
    schema = json.loads((SCHEMA_DIR / schema_file).read_text(encoding="utf-8"))
    return Draft202012Validator(schema)


def discover(specs_dir: Path) -> list[Path]:
    return sorted(p for p in specs_dir.rglob("*") if p.suffix in SPEC_SUFFIXES and p.is_file())


def read_document(path: Path, display: str) -> tuple[SpecDocument | None, list[SpecParseError]]:
    doc, errors = load_yaml_file(path, display)
    if doc is None:
        return None, errors
    if not isinstance(doc.value, dict):
        errors.append(SpecParseError("a spec document must be a YAML mapping at the top level",
                                     doc.location(()), "start the file with a version key such as `mapping_version: 1`"))
        return None, errors
    present = [k for k in VERSION_KEYS if k in doc.value]
    if len(present) != 1:
        what = "no version key" if not present else "several version keys (" + ", ".join(present) + ")"
        errors.append(SpecParseError(
            f"cannot tell the document kind: {what}", doc.location(()),
            "put exactly one of spec_version, mapping_version, catalog_version at the top"))
        return None, errors
    key = present[0]
    kind, schema_file = VERSION_KEYS[key]
    if schema_file is None:
        errors.append(SpecParseError(
            f"{kind} documents (`{key}`) are not part of this project: bloomery compiles the "
            "data-quality surface only (entity model, mappings, catalog)", doc.location((key,)),
            "move metrics, marts and steps to the tool that owns them"))
        return None, errors
    version = doc.value[key]
    if type(version) is not int or version != 1:
        errors.append(SpecParseError(f"`{key}` must be 1, got {version!r}", doc.location((key,)),
                                     f"write `{key}: 1`: only version 1 exists"))
        return None, errors
    errors.extend(_refusals(kind, doc))
    errors.extend(schema_errors(validator(schema_file), doc))
    return SpecDocument(kind, doc), errors


def _refusals(kind: str, doc: YamlDocument) -> list[SpecParseError]:
    """Things v1 spells but this project refuses by name, before the schema sees them."""
    out = []

    def walk_rules(rules, path):
        if not isinstance(rules, list):
            return
        for i, rule in enumerate(rules):
            if not isinstance(rule, dict):
                continue
            if rule.get("on_fail") == "repair" or "repair" in rule:
                where = path + (i, "on_fail" if rule.get("on_fail") == "repair" else "repair")
                out.append(SpecParseError(
                    "there is no repair in v1: rules judge and route, they do not rewrite values",
                    doc.location(where), "use on_fail: quarantine (replay it after a spec fix) or flag"))

    value = doc.value
    if kind == "mapping":
        for section in ("fields",):
            fields = value.get(section)
            if not isinstance(fields, dict):
                continue
            for name, spec in fields.items():
                if not isinstance(spec, dict):
                    continue
                for form in ("recipe", "step"):
                    if form in spec:
                        out.append(SpecParseError(
                            f"{form} field mappings are not part of this project",
                            doc.location((section, name, form)),
                            "map the field with `from:` and a transform chain"))
                walk_rules(spec.get("quality"), (section, name, "quality"))
        for section in ("key", "fields"):
            block = value.get(section)
            if not isinstance(block, dict):
                continue
            for name, spec in block.items():
                chain = spec.get("transform") if isinstance(spec, dict) else None
                if isinstance(chain, list):
                    for i, step in enumerate(chain):
                        if isinstance(step, dict) and "step" in step:
                            out.append(SpecParseError(
                                "chain links to steps (`{step: ref@N}`) are not part of this project",
                                doc.location((section, name, "transform", i)),
                                "write the transforms out in the chain"))
    if kind == "entity_model":
        entities = value.get("entities")
        if isinstance(entities, dict):
            for name, entity in entities.items():
                if isinstance(entity, dict):
                    walk_rules(entity.get("quality"), ("entities", name, "quality"))
    return out


def _known_keys(schema: dict) -> list[str]:
    keys = list(schema.get("properties", {}))
    for sub in schema.get("allOf", []):
        keys += list(sub.get("then", {}).get("properties", {}))
    return keys


def schema_errors(validator: Draft202012Validator, doc: YamlDocument) -> list[SpecParseError]:
    out: list[SpecParseError] = []
    seen = set()
    for error in validator.iter_errors(doc.value):
        if error.context:
            error = best_match(error.context)
        path = tuple(error.absolute_path)
        message, hint, path = _explain(error, path)
        if (path, message) in seen:
            continue
        seen.add((path, message))
        out.append(SpecParseError(message, doc.location(path), hint))
    return out


def _explain(error, path):
    validator = error.validator
    schema = error.schema if isinstance(error.schema, dict) else {}
    instance = error.instance
    title = schema.get("title")
    where = format_path(path) or "the document"
    if validator in ("additionalProperties", "unevaluatedProperties") and isinstance(instance, dict):
        known = _known_keys(schema)
        unknown = [k for k in instance if k not in known]
        key = unknown[0] if unknown else "?"
        close = difflib.get_close_matches(str(key), known, n=1)
        hint = f"did you mean `{close[0]}`?" if close else (
            "allowed keys: " + ", ".join(sorted(known)) if known else None)
        return f"unknown key `{key}`", hint, path + (key,)
    if validator == "required":
        missing = error.message.split("'")[1] if "'" in error.message else "?"
        return f"missing required key `{missing}` in {where}", f"add `{missing}:`", path
    if validator == "const" and path and path[-1] == "rule":
        return f"`{instance}` is not a rule here", None, path
    if validator == "enum":
        allowed = ", ".join(str(v) for v in schema.get("enum", []))
        close = difflib.get_close_matches(str(instance), [str(v) for v in schema.get("enum", [])], n=1)
        hint = f"did you mean `{close[0]}`?" if close else f"one of: {allowed}"
        return f"`{instance}` is not allowed for {title or where}", hint, path
    if validator == "pattern":
        return (f"`{instance}` is not a valid {title or 'value'} for {where}",
                _grammar_hint(schema), path)
    if validator == "type":
        expected = schema.get("type")
        got = type(instance).__name__
        if got == "Decimal":
            got = "an unquoted decimal number"
        return f"{where} must be {expected}, got {got} ({instance!r})", (
            "quote it to make it a string" if got.startswith("an unquoted") else None), path
    if validator == "propertyNames":
        return f"`{instance}` is not a valid name in {where}", _grammar_hint(schema), path
    return f"{where}: {error.message}", None, path


def _grammar_hint(schema: dict):
    examples = schema.get("examples")
    if examples:
        return "for example: " + ", ".join(f"`{e}`" for e in examples[:3])
    pattern = schema.get("pattern") or schema.get("propertyNames", {}).get("pattern")
    return f"it must match {pattern}" if pattern else None
