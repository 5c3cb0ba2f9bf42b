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

from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import yaml

from ..errors import Location, SpecParseError

try:  # libyaml is much faster on large spec trees
    _Loader = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on the PyYAML build
    _Loader = yaml.SafeLoader

SpecPath = tuple  # ("entities", "order", "quality", 0)

_FLOAT_TAG = "tag:yaml.org,2002:float"
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


class _Builder:
    def __init__(self, file: str):
        self.file = file
        self.marks: dict = {}
        self.errors: list[SpecParseError] = []
        self._scalar = yaml.constructor.SafeConstructor()

    def build(self, node: yaml.Node, path: SpecPath) -> Any:
        self.marks[path] = (node.start_mark.line + 1, node.start_mark.column + 1)
        if isinstance(node, yaml.MappingNode):
            out: dict = {}
            for key_node, value_node in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    self._error(key_node, path, "YAML merge keys (<<) are not supported in spec files",
                                "write the keys out in full")
                    continue
                key = self.build(key_node, path + ("<key>",))
                if not isinstance(key, (str, int)) or isinstance(key, bool):
                    self._error(key_node, path, f"a mapping key must be a string, got {key!r}", None)
                    continue
                if key in out:
                    self._error(key_node, path + (key,), f"duplicate key {key!r}",
                                "YAML keeps only the last one; remove or merge the duplicate")
                    continue
                out[key] = self.build(value_node, path + (key,))
                # Point at the key, not its value: a nested block's value starts a line later.
                self.marks[path + (key,)] = (key_node.start_mark.line + 1, key_node.start_mark.column + 1)
            self.marks.pop(path + ("<key>",), None)
            return out
        if isinstance(node, yaml.SequenceNode):
            return [self.build(item, path + (i,)) for i, item in enumerate(node.value)]
        if node.tag == _FLOAT_TAG:
            text = node.value.replace("_", "")
            text = _SPECIAL_FLOATS.get(text.lower(), text)
            return Decimal(text)
        value = self._scalar.construct_object(node, deep=True)
        if isinstance(value, str):
            return value.strip()
        # Dates and timestamps written unquoted stay text: the grammar speaks ISO strings.
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
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        problem = getattr(exc, "problem", None) or str(exc)
        return None, [SpecParseError(f"not valid YAML: {problem}", Location(file, line, column, ""),
                                     "check indentation and quoting around this line")]
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
    value = builder.build(nodes[0], ())
    return YamlDocument(file, value, builder.marks), builder.errors


def load_yaml_file(path: Path, display: str | None = None):
    file = display or str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        return None, [SpecParseError(f"not UTF-8 text: {exc.reason}", Location(file, 1, 1, ""),
                                     "save the spec file as UTF-8")]
    return load_yaml(text, file)
