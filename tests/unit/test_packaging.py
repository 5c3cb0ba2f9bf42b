"""What a non-editable install ships. pyproject finds packages with setuptools' `find` (not
`find_namespace`), which skips a folder without `__init__.py`: `bloomery.transforms` had none,
so `pip install "dbt-bloomery[duckdb] @ git+..."` (the README's line) installed a compiler that
could not import its transforms, while every editable checkout worked."""
from __future__ import annotations

from pathlib import Path

from setuptools import find_packages

PYTHON = Path(__file__).resolve().parents[2] / "python"


def test_every_folder_of_python_modules_is_a_package_the_wheel_ships():
    folders = {".".join(p.parent.relative_to(PYTHON).parts)
               for p in (PYTHON / "bloomery").rglob("*.py") if "__pycache__" not in p.parts}
    assert "bloomery.transforms" in folders
    assert sorted(folders - set(find_packages(str(PYTHON)))) == []


def test_the_license_is_an_spdx_expression():
    # setuptools 77+ warns at every build (twice per `pip install`) about the `{text = ...}` table
    import tomllib
    project = tomllib.loads((PYTHON.parent / "pyproject.toml").read_text())
    assert project["project"]["license"] == "Apache-2.0"
    assert "setuptools>=77" in project["build-system"]["requires"]
