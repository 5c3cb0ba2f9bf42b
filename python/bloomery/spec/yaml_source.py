"""YAML with a location for every node.

PyYAML's composer keeps line/column marks on nodes; the constructor drops them. We build plain
Python values ourselves from the node tree and keep a side table from spec path (a tuple of
keys and indices) to (line, column), so any later stage can point at the exact place.

Scalars follow PyYAML's safe resolution (so existing v1 files mean what they always meant),
with two deliberate changes: strings are whitespace-stripped, and floats become `Decimal` built
from the text the user wrote (`0.1` stays exactly 0.1; later stages refuse floats where the
grammar wants integers or strings).
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

import yaml

from ..errors import Location, Refusal, SpecParseError

try:  # libyaml is much faster on large spec trees
    _BaseLoader = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on the PyYAML build
    _BaseLoader = yaml.SafeLoader


class _Loader(_BaseLoader):
    """Safe loading, with the implicit tag of each plain scalar memoised: a spec tree repeats
    the same few words (rule, on_fail, quarantine, ...) thousands of times, and PyYAML's
    resolver runs in Python for every one of them."""

    _resolved: dict = {}

    def resolve(self, kind, value, implicit):
        if kind is not yaml.ScalarNode or len(value) > 64:
            return super().resolve(kind, value, implicit)
        memo = (value, implicit)
        tag = self._resolved.get(memo)
        if tag is None:
            tag = self._resolved[memo] = super().resolve(kind, value, implicit)
            if len(self._resolved) > 100_000:
                self._resolved.clear()
        return tag

SpecPath = tuple  # ("entities", "order", "quality", 0)

_FLOAT_TAG = "tag:yaml.org,2002:float"
_TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"
_STR_TAG = "tag:yaml.org,2002:str"
_COLLECTION_TAGS = frozenset(("tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"))
_PLAIN_TAGS = frozenset("tag:yaml.org,2002:" + t for t in ("str", "int", "bool", "null"))
_SPECIAL_FLOATS = {".nan": "NaN", ".inf": "Infinity", "+.inf": "Infinity", "-.inf": "-Infinity"}


def format_path(path: SpecPath) -> str:
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


@dataclass
class YamlDocument:
    file: str
    value: Any
    marks: dict  # SpecPath -> (line, column), both 1-based

    def location(self, path: SpecPath, prefix: str = "") -> Location:
        # Fall back to the nearest enclosing node that has a mark (a missing key's parent).
        probe = tuple(path)
        while probe not in self.marks and probe:
            probe = probe[:-1]
        line, column = self.marks.get(probe, (1, 1))
        text = format_path(path)
        if prefix:
            text = f"{prefix}.{text}" if text else prefix
        return Location(self.file, line, column, text)


# The largest spec file read. A generated tree of 200 entities and 2,000 rules keeps its whole
# entity model in 128 KB, so no real spec comes near 2 MiB; parsing is what a larger file would
# cost (a 50 MB file took 24 s and 3.4 GB), and the cap is checked before a byte is parsed.
MAX_SPEC_FILE_BYTES = 2 * 1024 * 1024


class _TooLarge(Refusal):
    """The document goes beyond a budget of `_Builder` at `node` (located by the caller)."""

    def __init__(self, node, budget: str):
        super().__init__(f"the document goes beyond the {budget} budget")
        self.node, self.budget = node, budget


class _Builder:
    # Budgets that no real spec tree comes near: they turn an alias bomb or a pathological
    # nesting into a located refusal instead of a hang or a RecursionError.
    MAX_NODES = 1_000_000
    MAX_ALIASED = 100_000   # nodes reached again through `*alias`
    MAX_DEPTH = 200

    def __init__(self, file: str):
        self.file = file
        self.marks: dict = {}
        self.errors: list[SpecParseError] = []
        self.nodes = 0
        self.aliased = 0
        self._seen: set[int] = set()
        scalar = yaml.constructor.SafeConstructor()
        self._construct = {"tag:yaml.org,2002:int": scalar.construct_yaml_int,
                           "tag:yaml.org,2002:bool": scalar.construct_yaml_bool,
                           "tag:yaml.org,2002:null": scalar.construct_yaml_null,
                           _STR_TAG: scalar.construct_yaml_str}

    def build(self, node: yaml.Node, path: SpecPath) -> Any:
        self.nodes += 1
        node_id = id(node)
        if node_id in self._seen:
            self.aliased += 1
        else:
            self._seen.add(node_id)
        # Each budget has its own message: blaming aliases for a file that merely holds many
        # values sends the user looking for something that is not there.
        if self.aliased > self.MAX_ALIASED:
            raise _TooLarge(node, "aliases")
        if self.nodes > self.MAX_NODES:
            raise _TooLarge(node, "nodes")
        if len(path) > self.MAX_DEPTH:
            raise _TooLarge(node, "depth")
        mark = node.start_mark
        self.marks[path] = (mark.line + 1, mark.column + 1)
        kind = node.__class__
        if kind is yaml.ScalarNode:
            return self._scalar_value(node, path)
        if node.tag not in _COLLECTION_TAGS:
            self._error(node, path, f"YAML tag `{node.tag}` is not allowed in spec files",
                        "remove the tag; spec files hold plain strings, numbers, booleans, lists and maps")
        if kind is yaml.SequenceNode:
            return [self.build(item, path + (i,)) for i, item in enumerate(node.value)]
        out: dict = {}
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                self._error(key_node, path, "YAML merge keys (<<) are not supported in spec files",
                            "write the keys out in full")
                continue
            if key_node.__class__ is not yaml.ScalarNode:
                self._error(key_node, path, "a mapping key must be a plain string, not a list or a map",
                            "write the key as a name, e.g. `email:`")
                continue
            key = self._scalar_value(key_node, path)
            if not isinstance(key, (str, int)) or isinstance(key, bool):
                self._error(key_node, path, f"a mapping key must be a string, got {key!r}",
                            "quote the key if it is meant as a name, e.g. `\"on\":`")
                continue
            if key in out:
                self._error(key_node, path + (key,), f"duplicate key {key!r}",
                            "YAML keeps only the last one; remove or merge the duplicate")
                continue
            child = path + (key,)
            out[key] = self.build(value_node, child)
            # Point at the key, not its value: a nested block's value starts a line later.
            mark = key_node.start_mark
            self.marks[child] = (mark.line + 1, mark.column + 1)
        return out

    def _scalar_value(self, node: yaml.ScalarNode, path: SpecPath) -> Any:
        tag = node.tag
        if tag == _STR_TAG:
            return node.value.strip()
        if tag == _FLOAT_TAG:
            text = node.value.replace("_", "")
            text = _SPECIAL_FLOATS.get(text.lower(), text)
            try:
                number = Decimal(text)
            except (InvalidOperation, ValueError):
                self._error(node, path, f"`{node.value}` is not a number a spec can use",
                            "write a plain decimal such as 12.5, or quote the value to make it text")
                return node.value
            # NaN stays a float: a Decimal NaN raises on every ordered comparison, and no
            # grammar accepts it anyway (later stages refuse it with its path).
            return float("nan") if number.is_nan() else number
        if tag == _TIMESTAMP_TAG:
            # Dates and timestamps written unquoted stay text: the grammar speaks ISO strings,
            # and later stages check them (so `2015-02-30` is refused there, with its path).
            return node.value.strip()
        if tag not in _PLAIN_TAGS:
            self._error(node, path, f"YAML tag `{tag}` is not allowed in spec files",
                        "remove the tag; spec files hold plain strings, numbers, booleans, lists and maps")
            return node.value
        try:
            value = self._construct[tag](node)
        except (yaml.YAMLError, ValueError, TypeError, ArithmeticError) as exc:
            self._error(node, path, f"`{node.value[:40]}` cannot be read as {tag.rsplit(':', 1)[-1]}: {exc}",
                        "quote the value to make it text, or write a plain number")
            return node.value
        if isinstance(value, str):
            return value.strip()
        if not isinstance(value, (int, bool, type(None))):
            return node.value.strip()
        return value

    def _error(self, node, path, message, hint):
        loc = Location(self.file, node.start_mark.line + 1, node.start_mark.column + 1, format_path(path))
        self.errors.append(SpecParseError(message, loc, hint))


def load_yaml(text: str, file: str) -> tuple[YamlDocument | None, list[SpecParseError]]:
    """Parse one YAML file holding one document. Returns (document, errors)."""
    try:
        nodes = list(yaml.compose_all(text, Loader=_Loader))
    except RecursionError:
        return None, [SpecParseError("the document nests too deeply to be a spec file", Location(file, 1, 1, ""),
                                     "write the structure out plainly")]
    except UnicodeEncodeError as exc:  # a lone surrogate in text handed to us as str
        line = text.count("\n", 0, exc.start) + 1
        return None, [SpecParseError(f"the text holds {text[exc.start]!r}, which is not a Unicode character",
                                     Location(file, line, 1, ""), "save the spec file as UTF-8")]
    except yaml.YAMLError as exc:
        problem_mark = getattr(exc, "problem_mark", None)
        context_mark = getattr(exc, "context_mark", None)
        context = getattr(exc, "context", None) or ""
        problem = getattr(exc, "problem", None) or str(exc)
        # An unclosed bracket or quote is noticed lines later; its opener is what to fix.
        opener = context_mark is not None and any(w in context for w in ("flow", "quoted", "scanning"))
        mark = context_mark if opener or problem_mark is None else problem_mark
        line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        message = f"not valid YAML: {problem}"
        if context and context_mark is not None:
            message += f" ({context} at line {context_mark.line + 1})"
        return None, [SpecParseError(message, Location(file, line, column, ""),
                                     "check indentation, brackets and quoting around this line")]
    nodes = [n for n in nodes if n is not None]
    if not nodes:
        return None, [SpecParseError("the file holds no YAML document", Location(file, 1, 1, ""),
                                     "add a version key such as `spec_version: 1`")]
    if len(nodes) > 1:
        n = nodes[1]
        return None, [SpecParseError("one document per file, found several (`---`)",
                                     Location(file, n.start_mark.line + 1, 1, ""),
                                     "split the file: one spec document per file")]
    builder = _Builder(file)
    try:
        value = builder.build(nodes[0], ())
    except (_TooLarge, RecursionError) as exc:
        node, budget = (exc.node, exc.budget) if isinstance(exc, _TooLarge) else (nodes[0], "depth")
        message, hint = _BUDGET_MESSAGES[budget]
        return None, [SpecParseError(message, Location(file, node.start_mark.line + 1, node.start_mark.column + 1, ""),
                                     hint)]
    return YamlDocument(file, value, builder.marks), builder.errors


_BUDGET_MESSAGES = {
    "aliases": (f"the document expands too far through YAML aliases (`*name` reuses more than "
                f"{_Builder.MAX_ALIASED:,} values) to be a spec file",
                "write the values out instead of reusing them with `&anchor` / `*alias`"),
    "nodes": (f"the document holds more than {_Builder.MAX_NODES:,} values, more than any spec file needs",
              "split the specs into several files, or check that this is the file you meant to put here"),
    "depth": (f"the document nests more than {_Builder.MAX_DEPTH} levels deep, deeper than any spec file needs",
              "write the structure out plainly; spec keys nest a few levels at most"),
}


def load_yaml_file(path: Path, display: str | None = None):
    file = display or str(path)
    try:
        with path.open("rb") as handle:
            # Read one byte past the cap, never more: the size is judged on what is read, so a
            # file that grows after a stat (or a device posing as a file) is still bounded.
            raw = handle.read(MAX_SPEC_FILE_BYTES + 1)
            size = os.fstat(handle.fileno()).st_size
    except OSError as exc:
        return None, [SpecParseError(f"cannot read the file: {exc.strerror or exc}", Location(file, 1, 1, ""),
                                     "check that the file exists and is readable")]
    if len(raw) > MAX_SPEC_FILE_BYTES:
        return None, [SpecParseError(
            f"the file is {_size(max(size, len(raw)))}, over the {_size(MAX_SPEC_FILE_BYTES)} a spec file may hold; "
            "it was not parsed",
            Location(file, 1, 1, ""),
            "split the specs into several files (one mapping per file), or remove the data "
            "that does not belong in a spec folder")]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        return None, [SpecParseError(f"not UTF-8 text: byte 0x{raw[exc.start]:02x} cannot be decoded ({exc.reason})",
                                     Location(file, line, column, ""), "save the spec file as UTF-8")]
    return load_yaml(text, file)


def _size(n: int) -> str:
    """Bytes as a person reads them, exact enough to compare with the cap: `52,428,800 bytes (50.0 MiB)`."""
    return f"{n:,} bytes ({n / (1024 * 1024):.1f} MiB)"
