"""`bloomery check`: every error listed, sorted by location, as text or JSON; exit codes."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bloomery.cli import main
from spec_trees import VALID, Tree

KEYS = {"error", "file", "line", "column", "path", "message", "hint", "stage"}


def broken(tmp_path) -> Tree:
    tree = Tree.copy("shop", tmp_path)
    tree.edit("mapping_orders.yaml", "warn_after: 6h", "warn_after: 6 hours")
    tree.edit("mapping_customers.yaml", "target: customer\n", "target: customer\ntargte: x\n")
    tree.edit("entity_model.yaml", "retention: 30d", "retention: 30y")
    return tree


def test_clean_tree_exits_0(capsys):
    assert main(["check", "--specs", str(VALID / "full")]) == 0
    assert capsys.readouterr().out.startswith("ok: 8 spec file(s), 5 entit(ies)")


def test_clean_tree_json_is_an_empty_list(capsys):
    assert main(["check", "--specs", str(VALID / "shop"), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == []


def test_json_lists_every_error_with_its_location(tmp_path, capsys):
    tree = broken(tmp_path)
    assert main(["check", "--specs", str(tree.root), "--format", "json"]) == 1
    errors = json.loads(capsys.readouterr().out)
    assert len(errors) == 3
    assert all(KEYS <= set(e) for e in errors)
    assert {e["error"] for e in errors} == {"SpecParseError"}
    assert [(e["file"], e["line"]) for e in errors] == sorted((e["file"], e["line"]) for e in errors)
    first = errors[0]
    assert (first["file"], first["line"], first["path"]) == (
        tree.display("entity_model.yaml"), tree.line_of("entity_model.yaml", "30y"),
        "entities.customer.quarantine.retention")
    assert first["message"] and first["hint"]


def test_text_prints_every_error_sorted_and_exits_1(tmp_path, capsys):
    tree = broken(tmp_path)
    assert main(["check", "--specs", str(tree.root)]) == 1
    err = capsys.readouterr().err.splitlines()
    listed = [line for line in err if "SpecParseError" in line]
    assert len(listed) == 3
    assert listed == sorted(listed, key=lambda l: (l.split(":")[0], int(l.split(":")[1])))
    assert listed[0].startswith(f"{tree.display('entity_model.yaml')}:{tree.line_of('entity_model.yaml', '30y')}:")
    assert err[-1] == "3 error(s); nothing was written."


def test_missing_folder_is_an_error_not_a_crash(tmp_path, capsys):
    assert main(["check", "--specs", str(tmp_path / "nope"), "--format", "json"]) == 1
    (error,) = json.loads(capsys.readouterr().out)
    assert error["error"] == "SpecParseError" and error["file"]


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_whole_process_prints_no_traceback(tmp_path, fmt):
    tree = Tree.copy("shop", tmp_path)
    (tree.root / "mapping_customers.yaml").write_bytes(b"\xff\xfe{{ '; -- \x00")
    tree.write("entity_model.yaml", "spec_version: 1\nentities: [\n")
    run = subprocess.run([sys.executable, "-m", "bloomery.cli", "check", "--specs", str(tree.root), "--format", fmt],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 1, run.stderr
    assert "Traceback" not in run.stdout + run.stderr
    if fmt == "json":
        assert len(json.loads(run.stdout)) == 2


@pytest.mark.parametrize("command", ["compile", "check"])
def test_an_emit_refusal_is_reported_with_its_file(tmp_path, capsys, command):
    """`convert` runs on no dbt target: `compile` refuses it, and so does `check`, so a CI step
    that gates on `check` never passes a spec that cannot compile."""
    tree = Tree.copy("shop", tmp_path)
    tree.edit("mapping_order_items.yaml", "transform: [{to_decimal: [12, 4]}]      #",
              "transform: [{to_decimal: [12, 4]}, {convert: EUR}]      #")
    out = ["--out", str(tmp_path / "models")] if command == "compile" else []
    assert main([command, "--specs", str(tree.root), *out, "--format", "json"]) == 1
    (error,) = json.loads(capsys.readouterr().out)
    assert error["error"] == "UnsupportedByTarget"
    assert error["file"] == tree.display("mapping_order_items.yaml") and error["line"] >= 1
