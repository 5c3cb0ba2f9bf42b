"""Finding spec files, telling their kind apart, and checking them against the JSON Schemas.

The schemas in `schemas/` are the one description of the v1 grammar: editors read them for
completion and hover text, and this module validates every document against them, turning each
jsonschema error into a located `SpecParseError` with a hint.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..errors import Location, SpecParseError
from .fast_schema import compile_schema
from .schema_errors import schema_errors
from .yaml_source import YamlDocument, load_yaml_file

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
def load_schema(schema_file: str) -> dict:
    return json.loads((SCHEMA_DIR / schema_file).read_text(encoding="utf-8"))


@lru_cache(maxsize=None)
def validator(schema_file: str):
    """jsonschema's validator, imported on first use: valid trees never need it (fast_check)."""
    from jsonschema import Draft202012Validator
    return Draft202012Validator(load_schema(schema_file))


@lru_cache(maxsize=None)
def fast_check(schema_file: str):
    """The compiled yes/no check (fast_schema); jsonschema explains only what it refuses."""
    return compile_schema(load_schema(schema_file))


def discover(specs_dir: Path) -> list[Path]:
    """The spec files under `specs_dir` that may be read (see `discover_specs`); refusals dropped."""
    return discover_specs(specs_dir)[0]


def discover_specs(specs_dir: Path, display=None) -> tuple[list[Path], list[SpecParseError]]:
    """Every spec file under `specs_dir`, sorted, each real file once; and the refusals.

    Specs are data the user put in one folder, so nothing outside it is read: a symlink (to a
    file or a folder) whose target resolves outside the resolved spec folder is refused, not
    followed, since following it would compile (and snapshot) whatever file it names. A symlink
    that stays inside the tree is followed, and a file reached twice that way is read once (the
    first path in sorted order), so a link cannot make a document count twice; a link cycle ends
    at the first folder seen again. `display(path)` names a file in errors (default: the path).
    """
    specs_dir = Path(specs_dir)
    show = display or str
    root = specs_dir.resolve()
    found: list[tuple[Path, Path]] = []          # (path under specs_dir, real path)
    errors: list[SpecParseError] = []
    walked: set[Path] = set()

    def inside(real: Path) -> bool:
        return real == root or root in real.parents

    def refuse_link(path: Path, target: Path, what: str):
        errors.append(SpecParseError(
            f"this {what} is a symlink to {target}, outside the spec folder {root}: specs are read from "
            "the spec folder only, so it was not read",
            Location(show(path), 1, 1, ""),
            f"copy the {what} into the spec folder (a symlink pointing inside it is fine), "
            "or point --specs at a folder that holds it"))

    def walk(folder: Path, real: Path):
        if real in walked:  # a link back to a folder already walked: a cycle or a second way in
            return
        walked.add(real)
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            errors.append(SpecParseError(f"cannot read the folder: {exc.strerror or exc}",
                                         Location(show(folder), 1, 1, ""), "check that the folder is readable"))
            return
        for entry in entries:
            path = folder / entry.name
            is_spec = path.suffix in SPEC_SUFFIXES
            if entry.is_symlink():
                target = path.resolve()  # strict=False: a dangling link still names where it points
                is_dir = target.is_dir()
                if not inside(target):
                    if is_dir or is_spec:
                        refuse_link(path, target, "folder" if is_dir else "file")
                    continue
                if is_dir:
                    walk(path, target)
                elif is_spec and target.is_file():
                    found.append((path, target))
            elif entry.is_dir(follow_symlinks=False):
                walk(path, real / entry.name)
            elif is_spec and entry.is_file(follow_symlinks=False):
                found.append((path, real / entry.name))

    walk(specs_dir, root)
    paths, read = [], set()
    for path, real in sorted(found):
        if real not in read:
            read.add(real)
            paths.append(path)
    return paths, errors


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
    refused = _refusals(kind, doc)
    # A refusal says more than the schema would about the same place (an unknown `repair` key,
    # a `recipe` field without `from`): keep the refusal, drop schema noise at and just above it.
    skip = frozenset(where for where, _ in refused)
    errors.extend(e for _, e in refused)
    if refused or not fast_check(schema_file)(doc.value):
        errors.extend(schema_errors(validator(schema_file), doc, skip))
    return SpecDocument(kind, doc), errors


def _refusals(kind: str, doc: YamlDocument) -> list[tuple[tuple, SpecParseError]]:
    """Things v1 spells but this project refuses by name, before the schema sees them."""
    out: list[tuple[tuple, SpecParseError]] = []

    def refuse(where: tuple, message: str, hint: str):
        out.append((where, SpecParseError(message, doc.location(where), hint)))

    def walk_rules(rules, path):
        if not isinstance(rules, list):
            return
        for i, rule in enumerate(rules):
            if not isinstance(rule, dict):
                continue
            if rule.get("on_fail") == "repair" or "repair" in rule:
                where = path + (i, "on_fail" if rule.get("on_fail") == "repair" else "repair")
                refuse(where, "there is no repair in v1: rules judge and route, they do not rewrite values",
                       "use on_fail: quarantine (replay it after a spec fix) or flag")

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
                        refuse((section, name, form),
                               f"`{form}:` field mappings are not part of this project (data-quality surface only)",
                               "map the field with `from:` and a transform chain")
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
                            refuse((section, name, "transform", i),
                                   "chain links to steps (`{step: ref@N}`) are not part of this project",
                                   "write the transforms out in the chain")
    if kind == "entity_model":
        entities = value.get("entities")
        if isinstance(entities, dict):
            for name, entity in entities.items():
                if isinstance(entity, dict):
                    walk_rules(entity.get("quality"), ("entities", name, "quality"))
    return out
