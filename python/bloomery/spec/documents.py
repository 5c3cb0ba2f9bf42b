"""Finding spec files, telling their kind apart, and checking them against the JSON Schemas.

The schemas in `schemas/` are the one description of the v1 grammar: editors read them for
completion and hover text, and this module validates every document against them, turning each
jsonschema error into a located `SpecParseError` with a hint.
"""
from __future__ import annotations

import difflib
import json
import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from decimal import Decimal
from typing import Any


from ..errors import Location, SpecParseError
from ..vocabulary import RESERVED
from .fast_schema import compile_schema
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


def _known_keys(schema: dict) -> list[str]:
    keys = list(schema.get("properties", {}))
    for sub in schema.get("allOf", []):
        keys += list(sub.get("then", {}).get("properties", {}))
    return keys


def schema_errors(validator, doc: YamlDocument,
                  skip: frozenset = frozenset()) -> list[SpecParseError]:
    """Every schema violation of `doc`, explained; none at a path in `skip` (already refused)."""
    out: list[SpecParseError] = []
    seen = set()
    for error in validator.iter_errors(doc.value):
        explained = _explain_choice(error)
        if explained is None:
            if error.context:
                from jsonschema.exceptions import best_match
                error = best_match(error.context)
            explained = _explain(error, tuple(error.absolute_path))
        message, hint, path = explained
        if any(path == where[:-1] or path[:len(where)] == where for where in skip) or (path, message) in seen:
            continue
        seen.add((path, message))
        out.append(SpecParseError(message, doc.location(path), hint))
    return out


def _explain_choice(error):
    """anyOf/oneOf over `required` alternatives: say which keys are wanted, in the rule's words."""
    if error.validator not in ("anyOf", "oneOf") or not isinstance(error.instance, dict):
        return None
    options = []
    for sub in error.validator_value:
        if not (isinstance(sub, dict) and set(sub) == {"required"} and len(sub["required"]) == 1):
            return None
        options.append(sub["required"][0])
    path = tuple(error.absolute_path)
    what = _owner(error.instance, path)
    listed = " or ".join(f"`{o}`" for o in options)
    present = [o for o in options if o in error.instance]
    if error.validator == "oneOf" and len(present) > 1:
        return (f"{what} takes exactly one of {listed}, not both",
                f"keep `{present[0]}` or `{present[1]}` and move the other into a second rule", path)
    if error.validator == "oneOf":
        return f"{what} needs exactly one of {listed}", f"add `{options[0]}: [...]`", path
    return (f"{what} needs {listed} (or both)" if len(options) == 2 else f"{what} needs one of {listed}",
            f"add `{options[0]}:`", path)


def _owner(instance, path) -> str:
    if isinstance(instance, dict) and isinstance(instance.get("rule"), str):
        return f"rule `{instance['rule']}`"
    return f"`{format_path(path)}`" if path else "the document"


def _describe_type(expected) -> str:
    names = {"string": "a string", "integer": "an integer", "number": "a number", "object": "a map",
             "array": "a list", "boolean": "true or false", "null": "empty"}
    kinds = expected if isinstance(expected, list) else [expected]
    return " or ".join(names.get(k, str(k)) for k in kinds)


def _describe_value(instance) -> str:
    if isinstance(instance, bool):
        return f"the boolean {str(instance).lower()}"
    if isinstance(instance, (Decimal, float)):
        return f"the unquoted number {instance}"
    if isinstance(instance, int):
        return f"the integer {instance}"
    if isinstance(instance, str):
        return f"the string {_short(instance)!r}"
    if isinstance(instance, list):
        return "a list"
    if isinstance(instance, dict):
        return "a map"
    return "nothing" if instance is None else type(instance).__name__


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def _explain(error, path):
    validator = error.validator
    schema = error.schema if isinstance(error.schema, dict) else {}
    instance = error.instance
    title = schema.get("title")
    where = format_path(path) or "the document"
    key = path[-1] if path and isinstance(path[-1], str) else None
    jinja = _jinja_name(error, path)
    if jinja:
        return jinja
    if "propertyNames" in error.absolute_schema_path:
        # The offender is the name itself: point at it, not at the map that holds it.
        path = path + (instance,)
        if validator == "not" and instance in RESERVED:
            return (f"`{instance}` is a reserved name: bloomery adds a column of that name itself",
                    "rename it; reserved: " + ", ".join(sorted(RESERVED)), path)
        if validator == "not":
            return f"`{_short(str(instance))}` is not allowed as a name in `{where}`", None, path
        what = (title or "name").lower()
        return (f"`{_short(str(instance))}` is not a valid {what} in `{where}`",
                _grammar_hint(schema) or "use lowercase letters, digits and underscores", path)
    if validator in ("additionalProperties", "unevaluatedProperties") and isinstance(instance, dict):
        known = _known_keys(schema)
        unknown = [k for k in instance if k not in known]
        name = unknown[0] if unknown else "?"
        close = difflib.get_close_matches(str(name), known, n=1)
        hint = f"did you mean `{close[0]}`?" if close else (
            "allowed keys: " + ", ".join(sorted(known)) if known else None)
        return f"unknown key `{_short(str(name))}` in {where}", hint, path + (name,)
    if validator == "required":
        missing = error.validator_value[0] if len(error.validator_value) == 1 else "?"
        for k in error.validator_value:
            if isinstance(instance, dict) and k not in instance:
                missing = k
                break
        return f"{_owner(instance, path)} is missing the required key `{missing}`", f"add `{missing}:`", path
    if validator == "const":
        expected = error.validator_value
        if key == "rule":
            return f"`{_short(str(instance))}` is not a rule here", None, path
        return (f"`{key or where}` must be `{expected}`, got {_describe_value(instance)}",
                f"write `{key}: {expected}`" if key else None, path)
    if validator == "enum":
        options = [str(v) for v in schema.get("enum", [])]
        close = difflib.get_close_matches(str(instance), options, n=1)
        hint = f"did you mean `{close[0]}`?" if close else f"one of: {', '.join(options)}"
        return f"`{_short(str(instance))}` is not allowed for `{key or where}` ({title or where})", hint, path
    if validator == "pattern":
        return (f"`{_short(str(instance))}` is not a valid {(title or 'value').lower()} for `{where}`",
                _grammar_hint(schema), path)
    if validator == "type":
        hint = None
        if str(schema.get("pattern", "")).endswith("%$") and isinstance(instance, (int, Decimal)) \
                and not isinstance(instance, bool):
            # a share of rows: a bare number could be a fraction or a percent, so the sign is asked for
            hint = 'write a percent with its sign, e.g. "1%" or "0.5%" (0.01 could mean 1% or 0.01%)'
        elif isinstance(instance, Decimal) and instance.is_finite():
            hint = f'quote it: "{instance}"'
        elif isinstance(instance, (bool, int)) and "string" in str(schema.get("type")):
            hint = f'quote it if you mean text: "{str(instance).lower()}"'
        else:
            hint = _grammar_hint(schema)
        return (f"`{where}` must be {_describe_type(schema.get('type'))}, got {_describe_value(instance)}",
                hint, path)
    if validator in ("minItems", "minProperties"):
        what = "item" if validator == "minItems" else "entry"
        return (f"`{where}` needs at least {error.validator_value} {what}(s), got {len(instance)}",
                _grammar_hint(schema), path)
    if validator == "maxProperties" and isinstance(instance, dict):
        keys = ", ".join(str(k) for k in instance)
        return (f"`{where}` holds {len(instance)} keys ({_short(keys)}); a transform step is one `name: args` pair",
                "write each transform as its own list item: [trim, lower]", path)
    if validator == "minimum":
        return (f"`{key or where}` must be at least {error.validator_value}, got {instance}",
                f"write `{key}: {error.validator_value}` or more" if key else None, path)
    if validator == "minLength":
        return f"`{where}` must not be empty", _grammar_hint(schema), path
    if validator == "uniqueItems":
        return f"`{where}` lists the same item twice", "remove the duplicate", path
    return f"{where}: {error.message}", None, path


# What dbt renders as Jinja wherever it reads text: the schemas refuse it in every name.
_JINJA_OPENER = re.compile(r"\{[{%#]")


def _jinja_name(error, path):
    """A name refused because it holds a Jinja opener: say that, whichever grammar caught it (a
    name's pattern, or the `jinja_opener` guard on names the schema otherwise leaves free)."""
    if error.validator not in ("pattern", "not") or not isinstance(error.instance, str):
        return None
    opener = _JINJA_OPENER.search(error.instance)
    if not opener:
        return None
    if "propertyNames" in error.absolute_schema_path:
        path = path + (error.instance,)  # the offender is the key itself: point at it
    hint = "rename it with letters, digits and underscores only"
    examples = error.schema.get("examples") if isinstance(error.schema, dict) else None
    names = [f"`{e}`" for e in (examples or [])[:2] if isinstance(e, str)]
    if names:
        hint += ", e.g. " + ", ".join(names)
    return (f"`{_short(error.instance)}` holds `{opener.group()}`, which dbt would run as Jinja: "
            "a name in a spec is data, never code", hint, path)


def _grammar_hint(schema: dict):
    examples = schema.get("examples")
    if examples:
        return "for example: " + ", ".join(f"`{e}`" for e in examples[:3])
    pattern = schema.get("pattern") or schema.get("propertyNames", {}).get("pattern")
    return f"it must match {pattern}" if pattern else None
