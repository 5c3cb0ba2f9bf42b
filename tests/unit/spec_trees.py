"""Spec trees for tests: a copy of a valid tree, edited as text so every expected line is known.

    tree = Tree.copy("shop", tmp_path)
    tree.edit("mapping_customers.yaml", "transform: [trim, lower]", "transform: [trim, lowr]")
    (error,) = tree.errors()
    assert error.location.line == tree.line_of("mapping_customers.yaml", "lowr")
"""
from __future__ import annotations

import shutil
from pathlib import Path

from bloomery.resolve import ProjectIR, check_project
from bloomery.errors import BloomeryError, BloomeryErrors

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
VALID = FIXTURES / "valid"


class Tree:
    def __init__(self, root: Path):
        self.root = root

    @classmethod
    def copy(cls, name: str, tmp_path: Path) -> "Tree":
        root = tmp_path / "specs"
        shutil.copytree(VALID / name, root)
        return cls(root)

    # -- editing -------------------------------------------------------------------------------
    def text(self, file: str) -> str:
        return (self.root / file).read_text(encoding="utf-8")

    def write(self, file: str, text: str) -> "Tree":
        (self.root / file).write_text(text, encoding="utf-8")
        return self

    def edit(self, file: str, old: str, new: str) -> "Tree":
        text = self.text(file)
        count = text.count(old)
        assert count == 1, f"{file}: {old!r} occurs {count} times; an edit must be unambiguous"
        return self.write(file, text.replace(old, new))

    def append(self, file: str, text: str) -> "Tree":
        return self.write(file, self.text(file).rstrip("\n") + "\n" + text)

    def remove(self, file: str) -> "Tree":
        (self.root / file).unlink()
        return self

    # -- looking -------------------------------------------------------------------------------
    def display(self, file: str) -> str:
        """The file name as errors report it (relative to the folder holding the tree)."""
        return f"{self.root.name}/{file}"

    def line_of(self, file: str, needle: str, occurrence: int = 1) -> int:
        lines = self.text(file).splitlines()
        hits = [i + 1 for i, line in enumerate(lines) if needle in line]
        assert len(hits) >= occurrence, f"{file}: {needle!r} found {len(hits)} times"
        if occurrence == 1:
            assert len(hits) == 1, f"{file}: {needle!r} is on several lines {hits}; use a unique needle"
        return hits[occurrence - 1]

    def check(self) -> ProjectIR:
        return check_project(self.root)

    def errors(self) -> list[BloomeryError]:
        try:
            self.check()
        except BloomeryErrors as exc:
            return list(exc.collected)
        except BloomeryError as exc:  # pragma: no cover - check_project raises the aggregate
            return [exc]
        return []
