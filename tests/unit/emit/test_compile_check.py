"""`bloomery compile --check`: is the output folder what the specs produce? Exit 0 when it is, 3 with
every missing, changed and stale file named when it is not; it writes nothing either way. The same
plan of changes drives `compile` itself, so the two can not disagree. Also the compile fingerprint
(`_bloomery_compile.sql`) the package's on-run-start check reads."""
from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from bloomery import __version__
from bloomery.cli import main
from bloomery.resolve import check_project
from bloomery.emit.dbt import FINGERPRINT, plan_changes, write
from bloomery.resolve import IR_VERSION
from spec_trees import Tree

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def project(tmp_path) -> Path:
    """A dbt project folder holding the shop specs; nothing compiled yet."""
    (tmp_path / "dbt_project.yml").write_text("name: shop\nversion: '1.0'\nconfig-version: 2\nprofile: shop\n")
    Tree.copy("shop", tmp_path)
    return tmp_path


def compile_(project: Path, *extra: str) -> int:
    return main(["compile", "--specs", str(project / "specs"), "--out", str(project / "models" / "bloomery"), *extra])


def tree(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): p.read_text() for p in sorted(folder.rglob("*")) if p.is_file()} \
        if folder.exists() else {}


def test_up_to_date_exits_0_and_writes_nothing(project, capsys):
    assert compile_(project) == 0
    out = project / "models" / "bloomery"
    before = tree(out)
    capsys.readouterr()
    assert compile_(project, "--check") == 0
    assert tree(out) == before
    assert "up to date" in capsys.readouterr().out


def test_nothing_compiled_yet_lists_every_file_missing_and_creates_no_folder(project, capsys):
    assert compile_(project, "--check") == 3
    assert not (project / "models").exists()
    out = capsys.readouterr().out
    assert "missing: order.sql" in out and f"missing: {FINGERPRINT}" in out
    assert "missing: .bloomery/compiled_specs.json" in out
    assert f"bloomery compile --specs {project / 'specs'} --out {project / 'models' / 'bloomery'}" in out


def test_a_spec_edited_after_compiling_is_caught_and_nothing_is_written(project, capsys):
    assert compile_(project) == 0
    out = project / "models" / "bloomery"
    before = tree(out)
    Tree(project / "specs").edit("mapping_orders.yaml", "shipped, shipped, shipped", "shipped, shipped, shipped, gone, shipped")
    capsys.readouterr()
    assert compile_(project, "--check") == 3
    assert tree(out) == before
    printed = capsys.readouterr().out
    changed = sorted(re.findall(r"^changed: (\S+)$", printed, re.M))
    assert "order__staged.sql" in changed and ".bloomery/compiled_specs.json" in changed


def test_a_comment_edited_in_a_spec_leaves_the_models_but_not_the_snapshot(project, capsys):
    """`plan --against-compiled` reads the snapshot: it is part of what compile produces."""
    assert compile_(project) == 0
    Tree(project / "specs").append("mapping_orders.yaml", "# a comment\n")
    capsys.readouterr()
    assert compile_(project, "--check") == 3
    assert re.findall(r"^(?:missing|changed|stale): (\S+)$", capsys.readouterr().out, re.M) == [
        ".bloomery/compiled_specs.json"]


def test_hand_edits_deletions_and_stale_files_are_each_named(project, capsys):
    assert compile_(project) == 0
    out = project / "models" / "bloomery"
    (out / "order.sql").write_text((out / "order.sql").read_text() + "-- tweaked\n")
    (out / "customer.yml").unlink()
    marker_line = (out / "order.sql").read_text().splitlines()[0]
    (out / "gone__staged.sql").write_text(marker_line + "\nselect 1 as x\n")       # left by an older compile
    (out / "mine.sql").write_text("select 1 as x\n")                              # not generated: not ours
    before = tree(out)
    capsys.readouterr()
    assert compile_(project, "--check") == 3
    assert tree(out) == before
    printed = capsys.readouterr().out
    assert re.search(r"^changed: order\.sql$", printed, re.M)
    assert re.search(r"^missing: customer\.yml$", printed, re.M)
    assert re.search(r"^stale: gone__staged\.sql \(would be removed\)$", printed, re.M)
    assert "mine.sql" not in printed


def test_json_says_what_differs(project, capsys):
    assert compile_(project) == 0
    out = project / "models" / "bloomery"
    (out / "order.sql").unlink()
    capsys.readouterr()
    assert compile_(project, "--check", "--format", "json") == 3
    doc = json.loads(capsys.readouterr().out)
    assert doc["up_to_date"] is False and doc["missing"] == ["order.sql"] and doc["changed"] == [] and doc["stale"] == []
    assert compile_(project) == 0
    capsys.readouterr()
    assert compile_(project, "--check", "--format", "json") == 0
    assert json.loads(capsys.readouterr().out) == {"up_to_date": True, "missing": [], "changed": [], "stale": []}


def test_refused_specs_exit_1_under_check_too(project, capsys):
    Tree(project / "specs").edit("entity_model.yaml", "retention: 30d", "retention: 30y")
    assert compile_(project, "--check") == 1
    assert not (project / "models").exists()


def test_write_applies_exactly_the_plan(project):
    project_ir = check_project(project / "specs")
    out = project / "models" / "bloomery"
    plan = plan_changes(project_ir, out, project / "specs")
    assert plan.missing and not plan.changed and not plan.stale
    report = write(project_ir, out, project / "specs")
    assert report["written"] == sorted(plan.missing)
    assert tree(out) == plan.files
    again = plan_changes(project_ir, out, project / "specs")
    assert not (again.missing or again.changed or again.stale) and sorted(again.unchanged) == sorted(plan.files)


# -- the fingerprint the package checks on-run-start -----------------------------------------------
def _meta(text: str) -> dict:
    found = re.search(r'"bloomery_compile": (\{.*\})\}\) \}\}', text)
    assert found, text
    return json.loads(found.group(1))


def test_the_fingerprint_names_the_ir_version_the_specs_and_every_generated_model(project):
    assert compile_(project) == 0
    out = project / "models" / "bloomery"
    text = (out / FINGERPRINT).read_text()
    assert text.splitlines()[0].startswith("-- generated by bloomery compile")
    assert "materialized" in text and "ephemeral" in text
    meta = _meta(text)
    assert meta["ir_version"] == IR_VERSION and meta["bloomery_version"] == __version__
    assert meta["specs"] == "specs" and meta["out"] == "models/bloomery"
    sql = sorted(p.stem for p in out.glob("*.sql") if p.name != FINGERPRINT)
    assert sorted(meta["models"]) == sql
    # dbt hands a model's text to Jinja stripped (`raw_code`); the hook md5s that with local_md5
    body = (out / "order.sql").read_text()
    assert meta["models"]["order"] == hashlib.md5(body.strip().encode()).hexdigest()


def test_the_fingerprint_does_not_depend_on_where_compile_ran(project, monkeypatch):
    assert compile_(project) == 0
    first = (project / "models" / "bloomery" / FINGERPRINT).read_text()
    monkeypatch.chdir(project)
    assert main(["compile", "--specs", "specs", "--out", "models/bloomery"]) == 0
    assert (project / "models" / "bloomery" / FINGERPRINT).read_text() == first


def test_the_package_expects_the_ir_version_and_version_the_compiler_writes():
    """Bump them together: the macros read the IR the compiler writes."""
    text = (ROOT / "macros" / "checks" / "compile_contract.sql").read_text()
    found = re.search(r"\{'ir_version': (\d+), 'version': '([^']+)'\}", text)
    assert found, "bloomery.compile_contract() must return {'ir_version': N, 'version': 'X.Y.Z'}"
    assert int(found.group(1)) == IR_VERSION
    assert found.group(2) == __version__
    assert re.search(rf'^version: "{re.escape(__version__)}"$', (ROOT / "dbt_project.yml").read_text(), re.M)
