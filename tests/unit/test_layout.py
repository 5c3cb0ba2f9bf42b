"""The package's shape (issue 21): modules stay small, and imports follow the pipeline.

The compile pipeline is Spec -> Typing (transforms/) -> Guardrails -> Resolve -> Emit, Plan and
Report. A stage may import the stages before it, never one after it or a sibling, so a change to
emit cannot reach back into how specs are resolved. `errors` and `vocabulary` are read by every
stage; `cli`, `summary` and the spec-key doc generator sit on top. Read from the source text, so
a lazy import inside a function counts as much as one at the top.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "python" / "bloomery"
# "about 400" (issue 21): room for one parser or registry to run a few lines over rather than be
# cut in the middle of its grammar (guardrails/regex_subset.py, transforms/chain.py)
MAX_LINES = 420

# the package (or top-level module) -> its place in the pipeline
LAYER = {
    "bloomery": 0, "errors": 0, "vocabulary": 0, "terminal": 0,
    "spec": 1,
    "transforms": 2,
    "guardrails": 3,
    "resolve": 4,
    "emit": 5, "plan": 5, "report": 5,
    "summary": 6,
    "cli": 7, "spec_keys_doc": 7,
}


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The bloomery modules `name` imports (a package's __init__ counts as the package)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            targets = [target] + [f"{target}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        else:
            continue
        found.update(t for t in targets if t in modules and t != name)
    return found


def _stage(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


MODULES = _modules()
GRAPH = {name: _imports(name, path, MODULES) for name, path in MODULES.items()}


def test_every_module_is_placed_in_the_pipeline():
    assert sorted({_stage(m) for m in MODULES} - set(LAYER)) == []


@pytest.mark.parametrize("name", sorted(MODULES))
def test_a_module_stays_under_the_size_a_reader_takes_in(name):
    lines = MODULES[name].read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES, f"{MODULES[name].relative_to(PACKAGE.parent)} has {lines} lines: split it by concept"


def test_imports_run_down_the_pipeline_only():
    wrong = sorted(f"{a} -> {b}" for a, targets in GRAPH.items() for b in targets
                   if _stage(a) != _stage(b) and LAYER[_stage(b)] >= LAYER[_stage(a)] and LAYER[_stage(b)] > 0)
    assert wrong == []


def test_no_import_loop():
    state: dict[str, int] = {}   # 1 on the current path, 2 done
    loops = []

    def visit(node, path):
        state[node] = 1
        for nxt in sorted(GRAPH[node]):
            if state.get(nxt) == 1:
                loops.append(" -> ".join(path[path.index(nxt):] + [nxt]))
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = 2

    for name in sorted(GRAPH):
        if name not in state:
            visit(name, [name])
    assert loops == []


def test_the_checks_see_a_wrong_arrow_and_a_loop():
    # the two rules above, applied to a graph that breaks each of them
    graph = {"bloomery.spec.x": {"bloomery.emit.y"}, "bloomery.emit.y": {"bloomery.spec.x"}}
    wrong = [f"{a} -> {b}" for a, bs in graph.items() for b in bs
             if _stage(a) != _stage(b) and LAYER[_stage(b)] >= LAYER[_stage(a)]]
    assert wrong == ["bloomery.spec.x -> bloomery.emit.y"]
