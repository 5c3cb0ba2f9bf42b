"""The output folder: what a compile changes there (files missing, changed, unchanged, or stale
from an earlier compile), the fingerprint model dbt checks the models against, and writing it.

Separate because it is the only part of emit that touches the file system: rendering stays pure,
and `compile` and `compile --check` act on one and the same plan.
"""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from ..resolve import IR_VERSION   # the IR's shape: what the macros read
from .nodes import MARKER, SQL_HEADER, _config

FINGERPRINT = "_bloomery_compile.sql"


@dataclass
class Changes:
    """What a compile changes in its output folder: `files` is what the folder must hold (name ->
    content); every name is missing, changed or unchanged; `stale` are files an earlier compile
    wrote (marker on their first line) that this one does not."""
    files: dict[str, str]
    missing: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)

    @property
    def up_to_date(self) -> bool:
        return not (self.missing or self.changed or self.stale)


def fingerprint(files: dict[str, str], out_dir: Path, specs_dir: Path | None = None) -> str:
    """The fingerprint `_bloomery_compile.sql` of the rendered `files`: an ephemeral model (it
    builds nothing) whose meta the package's on-run-start check (bloomery.assert_compiled) reads:
    the IR version the models were compiled to, and the md5 of each generated model as dbt hands it
    to Jinja (`raw_code`, the file stripped), so dbt refuses models from another compile or edited
    by hand. dbt reads no other file, so whether the specs changed since is `compile --check`'s to
    say."""
    from .. import __version__
    root = next((p for p in [out_dir.resolve(), *out_dir.resolve().parents] if (p / "dbt_project.yml").is_file()),
                out_dir.resolve())

    def rel(path: Path) -> str:   # where compile ran must not change the file: relative to the dbt project
        return Path(os.path.relpath(path.resolve(), root)).as_posix()

    stamp = {"ir_version": IR_VERSION, "bloomery_version": __version__,
             "specs": rel(specs_dir) if specs_dir is not None else None, "out": rel(out_dir),
             "models": {name[:-4]: hashlib.md5(text.strip().encode("utf-8")).hexdigest()
                        for name, text in sorted(files.items()) if name.endswith(".sql")}}
    return (SQL_HEADER + "-- the compile these models come from, checked by the bloomery package before dbt "
            "runs them (bloomery.assert_compiled); ephemeral: it builds nothing\n"
            + _config(materialized="ephemeral", meta={"bloomery_compile": stamp})
            + "select 1 as compiled\n")


def compare(files: dict[str, str], out_dir: Path) -> Changes:
    """`files` against what `out_dir` holds; writes nothing."""
    changes = Changes(files)
    for name, content in sorted(files.items()):
        path = out_dir / name
        if not path.is_file():
            changes.missing.append(name)
        elif path.read_text(encoding="utf-8") == content:
            changes.unchanged.append(name)
        else:
            changes.changed.append(name)
    if out_dir.is_dir():
        for path in sorted(out_dir.iterdir()):
            if path.name in files or not path.is_file() or path.suffix not in (".sql", ".yml"):
                continue
            with path.open(encoding="utf-8") as fh:
                first = fh.readline()
            if MARKER in first:
                changes.stale.append(path.name)
    return changes


def apply(plan: Changes, out_dir: Path) -> dict[str, list[str]]:
    """Make `out_dir` what `plan` says; return what was written, unchanged and removed."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in sorted(plan.missing + plan.changed):
        (out_dir / name).write_text(plan.files[name], encoding="utf-8")
    for name in plan.stale:
        (out_dir / name).unlink()
    return {"written": sorted(plan.missing + plan.changed), "unchanged": plan.unchanged, "removed": plan.stale}
