"""A compiled yes/no check of a document against our JSON Schemas: the fast path.

`jsonschema` explains failures well and is what reports every error, but validating a large,
valid spec tree with it is most of a compile's time (its generic descend/evolve/$ref machinery
runs per node). Almost every document a user checks is valid, so we first ask this compiled
predicate, which knows exactly the keywords our schemas use, and only run `jsonschema` when it
says no. The two must agree: `tests/unit/spec/test_fast_schema.py` and the spec fuzz test compare
them on valid and mutated documents.

Semantics follow draft 2020-12 as `jsonschema` implements them, including its equality for
`enum`/`const`/`uniqueItems` (true is not 1) and its type rules (`integer` excludes booleans and
Decimals; `number` accepts Decimals). A keyword this module does not know is a compile error,
so a schema edit can never be silently ignored here.
"""
from __future__ import annotations

import numbers
import operator
import re
from typing import Any, Callable

Check = Callable[[Any], bool]

_ANNOTATIONS = frozenset({"$schema", "$id", "$defs", "title", "description", "examples", "default"})


def compile_schema(root: dict) -> Check:
    return _Compiler(root).compile(root)


# The size keywords the schemas use: the instance type each applies to, and how its size compares.
_SIZES = {"minProperties": (dict, operator.ge), "maxProperties": (dict, operator.le),
          "minItems": (list, operator.ge), "minLength": (str, operator.ge)}

class _Compiler:
    def __init__(self, root: dict):
        self.root = root
        self.refs: dict[str, Check] = {}

    def ref(self, pointer: str) -> Check:
        if pointer in self.refs:
            return self.refs[pointer]
        if not pointer.startswith("#/"):
            raise ValueError(f"only local $ref is supported, got {pointer!r}")
        target: Any = self.root
        for part in pointer[2:].split("/"):
            target = target[part.replace("~1", "/").replace("~0", "~")]
        cell: list[Check] = []
        # registered before compiling, so a recursive schema refers to itself lazily
        self.refs[pointer] = lambda x: cell[0](x)
        cell.append(self.compile(target))
        self.refs[pointer] = cell[0]
        return cell[0]

    def compile(self, schema) -> Check:
        if schema is True:
            return _always
        if schema is False:
            return _never
        checks: list[Check] = []
        keys = set(schema) - _ANNOTATIONS
        if "$ref" in keys:
            checks.append(self.ref(schema["$ref"]))
        if "type" in keys:
            checks.append(_type(schema["type"]))
        if "enum" in keys:
            options = list(schema["enum"])
            checks.append(lambda x: any(_equal(x, o) for o in options))
        if "const" in keys:
            const = schema["const"]
            checks.append(lambda x: _equal(x, const))
        if keys & {"properties", "additionalProperties"}:
            checks.append(self.properties(schema.get("properties", {}), schema.get("additionalProperties", True)))
        if "required" in keys:
            required = tuple(schema["required"])
            checks.append(lambda x: not isinstance(x, dict) or all(k in x for k in required))
        if "propertyNames" in keys:
            names = self.compile(schema["propertyNames"])
            checks.append(lambda x: not isinstance(x, dict) or all(names(k) for k in x))
        for keyword in sorted(keys & _SIZES.keys()):
            kind, within, bound = *_SIZES[keyword], schema[keyword]
            checks.append(lambda x, kind=kind, within=within, bound=bound:
                          not isinstance(x, kind) or within(len(x), bound))
        if "items" in keys:
            item = self.compile(schema["items"])
            checks.append(lambda x: not isinstance(x, list) or all(item(v) for v in x))
        if "uniqueItems" in keys and schema["uniqueItems"]:
            checks.append(lambda x: not isinstance(x, list) or _unique(x))
        if "pattern" in keys:
            search = re.compile(schema["pattern"]).search
            checks.append(lambda x: not isinstance(x, str) or search(x) is not None)
        if "minimum" in keys:
            m = schema["minimum"]
            checks.append(lambda x: not _is_number(x) or not x < m)  # as jsonschema: NaN passes
        if "allOf" in keys:
            checks.append(self.dispatch(schema["allOf"]) or self.all_of(schema["allOf"]))
        if "anyOf" in keys:
            subs = [self.compile(s) for s in schema["anyOf"]]
            checks.append(lambda x: any(s(x) for s in subs))
        if "oneOf" in keys:
            subs = [self.compile(s) for s in schema["oneOf"]]
            checks.append(lambda x: sum(1 for s in subs if s(x)) == 1)
        if "not" in keys:
            sub = self.compile(schema["not"])
            checks.append(lambda x: not sub(x))
        if "if" in keys:
            cond = self.compile(schema["if"])
            then = self.compile(schema.get("then", True))
            other = self.compile(schema.get("else", True))
            checks.append(lambda x: then(x) if cond(x) else other(x))
        unknown = keys - _KNOWN
        if unknown:
            raise ValueError(f"fast_schema does not implement {sorted(unknown)}; add them or drop them")
        if not checks:
            return _always
        if len(checks) == 1:
            return checks[0]
        return lambda x: all(c(x) for c in checks)

    def all_of(self, schemas: list) -> Check:
        subs = [self.compile(s) for s in schemas]
        return lambda x: all(s(x) for s in subs)

    def dispatch(self, schemas: list) -> Check | None:
        """`allOf` of `if {K: const V} then S` branches on one key K (how our schemas pick a rule
        kind's parameters): one dict lookup instead of evaluating every `if`."""
        key = None
        table: dict[str, list[Check]] = {}
        for branch in schemas:
            cond = branch.get("if") if isinstance(branch, dict) else None
            if not (isinstance(cond, dict) and set(branch) == {"if", "then"} and set(cond) == {"properties", "required"}
                    and len(cond["properties"]) == 1 and cond["required"] == list(cond["properties"])):
                return None
            (k, sub), = cond["properties"].items()
            if not (isinstance(sub, dict) and set(sub) == {"const"} and isinstance(sub["const"], str)):
                return None
            if key is not None and k != key:
                return None
            key = k
            table.setdefault(sub["const"], []).append(self.compile(branch["then"]))

        def check(x):
            if not isinstance(x, dict):
                return True
            value = x.get(key)
            # `const` equality with a string holds only for an equal string
            branches = table.get(value) if isinstance(value, str) else None
            return branches is None or all(b(x) for b in branches)

        return check

    def properties(self, properties: dict, additional) -> Check:
        props = {k: self.compile(v) for k, v in properties.items()}
        extra = None if additional is True else (_never if additional is False else self.compile(additional))

        def check(x):
            if not isinstance(x, dict):
                return True
            for k, v in x.items():
                c = props.get(k)
                if c is not None:
                    if not c(v):
                        return False
                elif extra is not None and not extra(v):
                    return False
            return True

        return check


_KNOWN = frozenset({"$ref", "type", "enum", "const", "properties", "additionalProperties", "required",
                    "propertyNames", "minProperties", "maxProperties", "items", "minItems", "uniqueItems",
                    "pattern", "minLength", "minimum", "allOf", "anyOf", "oneOf", "not", "if", "then", "else"})


def _always(x) -> bool:
    return True


def _never(x) -> bool:
    return False


def _is_number(x) -> bool:
    return isinstance(x, numbers.Number) and not isinstance(x, bool)


_TYPES: dict[str, Check] = {
    "string": lambda x: isinstance(x, str),
    "integer": lambda x: (isinstance(x, int) and not isinstance(x, bool)) or (isinstance(x, float) and x.is_integer()),
    "number": _is_number,
    "boolean": lambda x: isinstance(x, bool),
    "object": lambda x: isinstance(x, dict),
    "array": lambda x: isinstance(x, list),
    "null": lambda x: x is None,
}


def _type(expected) -> Check:
    kinds = [_TYPES[t] for t in (expected if isinstance(expected, list) else [expected])]
    if len(kinds) == 1:
        return kinds[0]
    return lambda x: any(k(x) for k in kinds)


def _equal(a, b) -> bool:
    """jsonschema's equality: strings only equal strings, booleans only booleans, deep for containers."""
    if a is b:
        return True
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, (list, dict)) or isinstance(b, (list, dict)):
        return False
    try:
        return bool(a == b)
    except ArithmeticError:
        return False


def _unique(items: list) -> bool:
    for i, a in enumerate(items):
        for b in items[i + 1:]:
            if _equal(a, b):
                return False
    return True
