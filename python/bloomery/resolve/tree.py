"""The spec tree being compiled: its documents, and the errors found in them so far.

Every resolve stage is a function of a `SpecTree`. Errors are collected, not raised, so one stage
reports every problem of its kind at once; `stage_done` raises them before the next stage runs,
which then never sees the cascade of an earlier mistake.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

from ..errors import ErrorSink, Location
from ..spec.documents import SpecDocument


class SpecTree:
    def __init__(self, specs_dir: Path):
        self.specs_dir = Path(specs_dir)
        self.sink = ErrorSink()
        self.model: SpecDocument | None = None
        self.mappings: list[SpecDocument] = []
        self.catalog: SpecDocument | None = None

    def error(self, cls, doc: SpecDocument, path: tuple, message: str, hint: str | None = None, prefix=""):
        self.sink.add(cls(message, doc.at(*path, prefix=prefix), hint))

    @staticmethod
    def mapping_label(doc: SpecDocument) -> str:
        v = doc.value
        return f"mapping[{v.get('source')}->{v.get('target')}]"

    def stage_done(self):
        self.sink.raise_if_any()

    def locator(self) -> Callable[[str], Location]:
        """Spec path text ("mapping[a->b].fields.x") -> its file, line and column, for later stages."""
        by_label = {self.mapping_label(d): d for d in self.mappings}
        model = self.model

        def locate(text: str) -> Location:
            doc, rest = model, text
            m = re.match(r"^(mapping\[[^\]]*\])\.?(.*)$", text)
            if m and m.group(1) in by_label:
                doc, rest = by_label[m.group(1)], m.group(2)
            location = doc.yaml.location(_parse_path(rest))
            return Location(location.file, location.line, location.column, text)

        return locate


def _parse_path(text: str) -> tuple:
    """`fields.x.quality[0]` -> ("fields", "x", "quality", 0); the inverse of format_path for
    names without dots or brackets (anything else falls back to the nearest enclosing node)."""
    out: list = []
    for part in re.findall(r"\[(\d+)\]|([^.\[\]]+)", text):
        index, name = part
        out.append(int(index) if index else name)
    return tuple(out)
