"""`dbt build` refuses, before any model runs, a project whose bloomery models are missing or are not
what this bloomery package reads (the on-run-start check bloomery.assert_compiled), and names the
command to run. What dbt can not see (a spec edited since the last compile: dbt reads no file
outside its own resources) is `bloomery compile --check`'s job, tested in tests/unit/emit/test_compile_check.py."""
from __future__ import annotations

import re

import pytest

from bloomery.emit.dbt import FINGERPRINT
from bloomery.plan.facts import IR_VERSION

from .corpus_checks import load_shop
from .harness import DuckProject, load_logs

pytestmark = pytest.mark.duckdb

COMMAND = "bloomery compile --specs specs --out models/bloomery"


def refused(project: DuckProject, *args: str) -> str:
    """Run dbt, which must fail with no model built; return dbt's log."""
    result = project.dbt(*args, check=False)
    assert not result.success
    assert not any(s == "success" for s in result.statuses.values()), f"no model may run: {result.statuses}"
    return load_logs(project)


@pytest.fixture
def shop(tmp_path):
    project = DuckProject(tmp_path)
    load_shop(project)
    return project


def test_build_before_any_compile_is_refused_with_the_command(shop):
    log = refused(shop, "build")
    assert "no models written by `bloomery compile`" in log
    assert COMMAND in log


def test_run_and_test_are_refused_too_but_compile_and_seed_are_not(shop):
    assert COMMAND in refused(shop, "run")
    assert shop.dbt("compile").success         # nothing is judged there: dbt's own flows stay open
    (shop.dir / "seeds").mkdir()
    (shop.dir / "seeds" / "countries.csv").write_text("code,name\nde,Germany\n")
    assert shop.dbt("seed").statuses == {"countries": "success"}


def test_a_project_using_the_package_without_specs_can_turn_the_check_off(shop):
    assert shop.dbt("build", "--vars", "{bloomery_check_compile: false}").success


def test_a_fresh_compile_builds(shop):
    assert shop.compile() == 0
    assert shop.dbt("build").success


def _set_ir_version(project, version: int):
    path = project.dir / "models" / "bloomery" / FINGERPRINT
    text, n = re.subn(r'"ir_version": \d+', f'"ir_version": {version}', path.read_text())
    assert n == 1
    path.write_text(text)


def test_models_compiled_for_an_older_package_are_refused(shop):
    assert shop.compile() == 0
    _set_ir_version(shop, 0)
    log = refused(shop, "build")
    assert "were compiled to IR version 0" in log and f"reads IR version {IR_VERSION}" in log
    assert COMMAND in log


def test_models_compiled_for_a_newer_package_are_refused(shop):
    assert shop.compile() == 0
    _set_ir_version(shop, 99)
    log = refused(shop, "build")
    assert "were compiled to IR version 99" in log and "dbt deps" in log
    assert COMMAND in log


def test_models_compiled_before_fingerprints_existed_are_refused(shop):
    assert shop.compile() == 0
    (shop.dir / "models" / "bloomery" / FINGERPRINT).unlink()
    log = refused(shop, "build")
    assert "carry no compile fingerprint" in log and COMMAND.replace("specs specs", "specs <spec folder>") in log


def test_a_hand_edited_generated_model_is_refused(shop):
    assert shop.compile() == 0
    path = shop.dir / "models" / "bloomery" / "order.sql"
    path.write_text(path.read_text() + "-- a quick fix\n")
    log = refused(shop, "build", "--select", "customer")   # whatever is selected: the models are one compile
    assert "models/bloomery/order.sql is not what `bloomery compile` wrote" in log
    assert COMMAND in log


def test_a_generated_model_left_from_another_compile_is_refused(shop):
    assert shop.compile() == 0
    out = shop.dir / "models" / "bloomery"
    marker = (out / "order.sql").read_text().splitlines()[0]
    (out / "gone.sql").write_text(marker + "\nselect 1 as x\n")
    log = refused(shop, "build")
    assert "models/bloomery/gone.sql is not what `bloomery compile` wrote" in log
