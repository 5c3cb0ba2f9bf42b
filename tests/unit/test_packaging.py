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
