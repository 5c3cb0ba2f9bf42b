"""The generated dbt files of every spec tree equal their golden copies (tests/golden/golden.py):
a change to what the compiler or its templates emit is made on purpose and reviewed as a diff.
Regenerate with `make golden`."""
from __future__ import annotations

import difflib

import pytest

from .golden import GOLDEN, TREES, compile_tree, stored


@pytest.mark.parametrize("name", sorted(TREES))
def test_generated_files_match_their_golden_copy(name, tmp_path):
    produced, golden = compile_tree(name, tmp_path), stored(name)
    assert golden, f"no golden copy of {name} in {GOLDEN}: run `make golden`"
    problems = [f"missing from the golden copy: {p}" for p in sorted(produced.keys() - golden.keys())]
    problems += [f"no longer generated: {p}" for p in sorted(golden.keys() - produced.keys())]
    for path in sorted(produced.keys() & golden.keys()):
        if produced[path] != golden[path]:
            diff = difflib.unified_diff(golden[path].splitlines(), produced[path].splitlines(),
                                        f"golden/{name}/{path}", f"generated/{path}", lineterm="", n=1)
            problems.append("\n".join(list(diff)[:60]))
    assert not problems, (f"the generated files of {name} differ from tests/golden/trees/{name} "
                          "(if the change is intended: `make golden`, and review the diff)\n" + "\n".join(problems))


def test_every_tree_has_a_golden_copy():
    assert sorted(p.name for p in GOLDEN.iterdir() if p.is_dir()) == sorted(TREES)
