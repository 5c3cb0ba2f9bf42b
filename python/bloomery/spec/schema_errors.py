"""A jsonschema error, said in the spec's terms: which key, what was expected, and a fix.

jsonschema reports where a value failed and which keyword refused it; a user needs the spec path,
the value they wrote, the keys that would have been accepted, and what to write instead. Kept apart
from reading and validating (documents.py), which decides whether a document is valid at all.
"""
from __future__ import annotations

import difflib
import re
from decimal import Decimal

from ..errors import SpecParseError
from ..vocabulary import RESERVED
from .yaml_source import YamlDocument, format_path


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
        if isinstance(instance, bool) and all(isinstance(v, str) for v in schema.get("enum", [])):
            # YAML 1.1 reads a bare off/no/on/yes as a boolean: `severity: off` arrives as false
            return (f"`{key or where}` ({title or where}) must be one of {', '.join(options)}, got the boolean "
                    f"{str(instance).lower()}: YAML reads a bare off, no, on or yes as true or false",
                    f"write one of: {', '.join(options)}", path)
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
