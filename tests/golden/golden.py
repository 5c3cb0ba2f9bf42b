"""Golden copies of what `bloomery compile` writes for the project's spec trees.

Every change to the generated SQL and YAML then shows in a review as a diff of these files, and
tests/golden/test_golden.py fails until they are regenerated on purpose:

    make golden        (or: .venv/bin/python -m tests.golden.golden)

A tree is compiled from a copy laid out as `<tmp>/<name>/specs` into `<tmp>/<name>/models`, so
the paths the compile fingerprint records are the same wherever the checkout is.
"""
from __future__ import annotations

import contextlib
import io
import shutil
import sys
import tempfile
from pathlib import Path

from bloomery.cli import main as bloomery_main

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent / "trees"
# name -> spec tree: the examples, the demo and every corpus the integration suites build
TREES = {
    "shop": ROOT / "integration_tests" / "specs",
    "demo": ROOT / "demo" / "specs",
    "valid_shop": ROOT / "tests" / "fixtures" / "valid" / "shop",
    "valid_full": ROOT / "tests" / "fixtures" / "valid" / "full",
    **{f"corpus_{p.parent.name}": p for p in sorted((ROOT / "integration_tests" / "corpus").glob("*/specs"))},
}


def compile_tree(name: str, work: Path) -> dict[str, str]:
    """The files `bloomery compile` writes for tree `name`, by path relative to the output folder."""
    specs, out = work / name / "specs", work / name / "models"
    shutil.copytree(TREES[name], specs)
    with contextlib.redirect_stdout(io.StringIO()):
        code = bloomery_main(["compile", "--specs", str(specs), "--out", str(out)])
    if code != 0:
        raise RuntimeError(f"bloomery compile of {TREES[name]} exited {code}")
    return {p.relative_to(out).as_posix(): p.read_text(encoding="utf-8") for p in sorted(out.rglob("*")) if p.is_file()}


def stored(name: str) -> dict[str, str]:
    folder = GOLDEN / name
    return {p.relative_to(folder).as_posix(): p.read_text(encoding="utf-8")
            for p in sorted(folder.rglob("*")) if p.is_file()}


def regenerate() -> None:
    with tempfile.TemporaryDirectory(prefix="bloomery-golden-") as tmp:
        for name in TREES:
            files = compile_tree(name, Path(tmp))
            folder = GOLDEN / name
            shutil.rmtree(folder, ignore_errors=True)
            for rel, text in files.items():
                (folder / rel).parent.mkdir(parents=True, exist_ok=True)
                (folder / rel).write_text(text, encoding="utf-8")
            print(f"{name}: {len(files)} file(s)")
    for stale in sorted(p for p in GOLDEN.iterdir() if p.is_dir() and p.name not in TREES):
        shutil.rmtree(stale)
        print(f"{stale.name}: removed (no such tree)")


if __name__ == "__main__":
    regenerate()
    sys.exit(0)
