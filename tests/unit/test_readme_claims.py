"""What the README and the docs say about setting up and running the tests is what the Makefile
and `.ci/run` do (issue 41: the README called `make test` "what CI runs" when CI also ran Spark and
the dialects). Each claim a test can read is read here from the files that make it true."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
CI = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
MAKEFILE = (ROOT / "Makefile").read_text(encoding="utf-8")


def _targets() -> set[str]:
    return set(re.findall(r"^([a-z][a-z-]*):", MAKEFILE, re.M))


def _ci_make_targets() -> list[str]:
    """The make targets `.ci/run` runs as steps, in order."""
    return re.findall(r'^step "[^"]*" make ([a-z-]+)', CI, re.M)


def test_the_readme_s_two_commands_are_make_targets():
    block = re.search(r"## Try it: two commands\n+```sh\n(.*?)```", README, re.S).group(1)
    commands = [line.split("#")[0].strip() for line in block.splitlines() if line.strip()]
    assert commands == ["make demo", "make test"]
    assert {"demo", "test"} <= _targets()


def test_the_readme_names_every_step_ci_runs_and_no_other():
    steps = _ci_make_targets()
    assert steps == ["test", "test-dialects", "test-spark"], steps
    paragraph = re.search(r"CI \(`\.ci/run`\) runs (.*?)\n\n", README, re.S).group(1)
    named = re.findall(r"`make ([a-z-]+)`", paragraph)
    assert sorted(named) == sorted(steps), paragraph
    assert set(steps) <= _targets()
    # the two engine steps run beside each other, as the README says
    assert re.search(r"make test-dialects [^\n]*&\n", CI) and "at the same time" in paragraph


def test_the_budget_the_docs_state_is_the_one_ci_enforces():
    warn = int(re.search(r"WARN_AFTER=\$\(\((\d+) \* 60\)\)", CI).group(1))
    stop = int(re.search(r"STOP_AFTER=\$\(\((\d+) \* 60\)\)", CI).group(1))
    assert f"past {warn} minutes the run warns, at {stop} it stops" in " ".join(README.split())
    reliability = " ".join((ROOT / "docs" / "reliability.md").read_text(encoding="utf-8").split())
    assert f"warns past {warn} minutes and stops at {stop}" in reliability


def test_the_readme_s_test_command_is_the_default_suite_make_test_runs():
    recipe = re.search(r"^test: .*\n((?:\t.*\n)+)", MAKEFILE, re.M).group(1)
    assert "pytest" in recipe and "-m spark" not in recipe and "dialects" not in recipe
    line = next(line for line in README.splitlines() if line.startswith("make test "))
    assert "the default suite" in line
