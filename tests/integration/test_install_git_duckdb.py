"""The package installs in an existing dbt project with `dbt deps` in its `git:` form.

The repository is cloned into a local bare repository (no network here), and a fresh dbt project
with a hand-written model of its own installs bloomery from it, compiles the shop specs beside
its model and builds everything.
"""
from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from .harness import INTEGRATION, ROOT, DuckProject

sys.path.insert(0, str(INTEGRATION))
from corpus import shop  # noqa: E402

pytestmark = pytest.mark.duckdb


def test_dbt_deps_from_git(tmp_path):
    bare = tmp_path / "bloomery.git"
    subprocess.run(["git", "clone", "--quiet", "--bare", str(ROOT), str(bare)], check=True)
    project = DuckProject(tmp_path)
    (project.dir / "packages.yml").write_text(f'packages:\n  - git: "file://{bare}"\n    revision: HEAD\n')
    (project.dir / "models" / "existing_model.sql").write_text("select 42 as answer\n")
    for table, spec in shop.BRONZE.items():
        project.write_bronze(table, spec["columns"], [v for v, _ in spec["rows"]])
    project.dbt("deps")
    project.deps_done = True
    assert (project.dir / "dbt_packages" / "bloomery" / "dbt_project.yml").exists()
    assert project.compile() == 0
    result = project.dbt("build")
    assert result.statuses["existing_model"] == "success"
    assert result.statuses["order_item"] == "success"
    assert project.query("select answer from main.existing_model") == [(42,)]
    shutil.rmtree(project.dir / "dbt_packages")
