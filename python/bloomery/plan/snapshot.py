"""What `bloomery compile` last compiled, kept beside its output so `plan` can diff against it.

`bloomery compile` writes `<out>/.bloomery/compiled_specs.json`: the text of every spec file it
compiled. JSON, so dbt (which reads .sql, .yml and .yaml files under its model paths) never
mistakes it for a model or a properties file, and in a folder `emit` never cleans up.
`bloomery plan --against-compiled <out>` recompiles those texts with the running bloomery, so
both sides of the diff have one IR version; when the snapshot was written by another bloomery
version the plan says so, since changes the compiler itself made are then not shown.
"""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from .. import __version__
from ..resolve import ProjectIR
from ..errors import PlanError
from ..spec.documents import discover
from .facts import load_project

SNAPSHOT_VERSION = 1
SNAPSHOT_DIR = ".bloomery"
SNAPSHOT_FILE = "compiled_specs.json"


def snapshot_path(out_dir: Path) -> Path:
    return Path(out_dir) / SNAPSHOT_DIR / SNAPSHOT_FILE


def write_snapshot(specs_dir: Path, out_dir: Path) -> Path:
    """Record the spec files just compiled from `specs_dir` into `out_dir`."""
    specs_dir = Path(specs_dir)
    files = {str(p.relative_to(specs_dir).as_posix()): p.read_text(encoding="utf-8") for p in discover(specs_dir)}
    doc = {"snapshot_version": SNAPSHOT_VERSION, "bloomery_version": __version__,
           "specs_dir": specs_dir.name or "specs", "files": dict(sorted(files.items()))}
    path = snapshot_path(out_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    # write then rename: an interrupted compile never leaves half a snapshot behind
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    return path


def load_compiled(out_dir: Path) -> tuple[ProjectIR, list[str]]:
    """The project `bloomery compile` last wrote into `out_dir`, and notes about how it was read."""
    path = snapshot_path(out_dir)
    if not path.is_file():
        raise PlanError(f"{out_dir} holds no snapshot of compiled specs ({SNAPSHOT_DIR}/{SNAPSHOT_FILE})",
                        hint="run `bloomery compile` once with this bloomery, or pass --old DIR; "
                             "for a first deployment pass only --new")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        version, files = doc["snapshot_version"], doc["files"]
    except (ValueError, KeyError, TypeError) as exc:
        raise PlanError(f"{path} is not a bloomery snapshot ({type(exc).__name__})",
                        hint="run `bloomery compile` again to rewrite it") from None
    if version != SNAPSHOT_VERSION:
        raise PlanError(f"{path} has snapshot version {version}; this bloomery reads version {SNAPSHOT_VERSION}",
                        hint="compile with this bloomery, or pass --old DIR")
    notes = []
    if doc.get("bloomery_version") != __version__:
        notes.append(f"the snapshot was compiled by bloomery {doc.get('bloomery_version')}; it was recompiled with "
                     f"{__version__} to compare, so changes the compiler itself made are not shown")
    with tempfile.TemporaryDirectory(prefix="bloomery-compiled-") as tmp:
        root = Path(tmp) / (doc.get("specs_dir") or "specs")
        for rel, text in files.items():
            target = (root / rel).resolve()
            if root.resolve() not in target.parents:
                raise PlanError(f"{path} names a file outside its spec folder: {rel}")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        root.mkdir(parents=True, exist_ok=True)
        project = load_project(root)
    return project, notes
