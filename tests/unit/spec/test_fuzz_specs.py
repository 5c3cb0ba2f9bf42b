"""Seeded fuzzing of the spec compiler: whatever a spec file holds, no traceback reaches the user.

Each case takes a valid tree (tests/fixtures/valid/*), mutates one or two of its files, and
compiles it. The outcome must be a clean project, or BloomeryError(s) that each name a file.
Mutations work on the YAML data (delete, rename or retype a key, inject hostile strings, graft a
subtree elsewhere, swap in a name from the spec's own vocabulary) and on the raw text (truncate,
random bytes, inject, delete/duplicate/swap/reindent lines).

    BLOOMERY_FUZZ_CASES=10000 pytest tests/unit/spec/test_fuzz_specs.py   # more cases (default 2000)
    BLOOMERY_FUZZ_SEED=7 ...                                          # another sequence
    BLOOMERY_FUZZ_EMIT=1 ...                                          # also render clean projects

A failure prints the case number and its mutations; `case_text(seed, n)` rebuilds it.
"""
from __future__ import annotations

import contextlib
import copy
import os
import random
import shutil
import traceback
from decimal import Decimal
from pathlib import Path

import pytest
import yaml

from bloomery.resolve import check_project
from bloomery.errors import BloomeryError, BloomeryErrors
from spec_trees import VALID

CASES = int(os.environ.get("BLOOMERY_FUZZ_CASES", "2000"))
SEED = int(os.environ.get("BLOOMERY_FUZZ_SEED", "20240611"))
EMIT = os.environ.get("BLOOMERY_FUZZ_EMIT") == "1"
CHUNK = 100

HOSTILE = [
    "'", '"', "''", "\\", ";", "; DROP TABLE x; --", "--", "/*", "*/", "{{", "}}", "{{ config() }}", "{% if %}",
    "{#", "#}", "%}", "$", "$.", "$..a", "${x}", "é", "中文", "🙂", "\u200b", "\u202e", "e\u0301", "\ufeff", "\t",
    "\n", " ", "", "__bloomery_col_0__", "NULL", "select 1", "a" * 300, "U+D800", "U+110000", "^", "(?:", "[",
    "1e5", "NaN", "-0", "0.0000000000000000000000000000000000001", "99999999999999999999999999999999999999999",
    "2015-02-30", "decimal(40,2)", "decimal(0,0)", "_load_id", "metric_time", "x@1", "mapping[a->b]",
    ".nan", ".inf", "!!float", "!!python/object:os.system", "&a", "*a", "<<: *a", "? ", "- ", ": ", "---",
]
SCALARS = [0, 1, -1, 2, 38, 39, 255, 1025, 10**20, -(10**20), True, False, None, Decimal("0.5"), Decimal("-1.5"),
           float("inf"), float("nan"), [], {}, [1, 2], {"a": 1}, "", "text"]
TOKENS = [  # the spec's own vocabulary, so mutations reach the later stages
    "customer", "order", "order_item", "shipment", "product", "customer_id", "order_id", "line_no", "email",
    "country", "status", "total", "sku", "quantity", "unit_price", "discount", "_ingested_at", "_load_id",
    "_source_row_id", "order_of_customer", "item_of_order", "shipment_of_order", "quarantine", "flag", "fail",
    "unknown_member", "coercible", "not_null", "range", "length", "pattern", "in_enum", "in_set", "unique",
    "normalize", "charset", "expression", "referential", "trim", "upper", "lower", "to_int", "to_decimal",
    "to_bool", "parse_ts", "parse_date", "enum_map", "json_path", "nullif", "coalesce", "multiply", "divide",
    "round", "abs", "convert", "split_part", "regex_extract", "to_utc", "to_string", "string", "int", "bool",
    "date", "timestamp", "variant", "decimal(12,4)", "ISO8601", "$.id", "$.payload.Price", "$._load_id",
    "$._ingested_at", "$._source_row_id", "90d", "30d", "6h", "U+0041", "U+0000-U+001F", "^[a-z]+$", "nfc",
    "latest_by", "type2", "many_to_one", "sum(order_item.line_amount) by order_id", "order.total", "0.01",
    "key", "fields", "from", "transform", "quality", "rule", "on_fail", "on_missing", "via", "dedupe",
    "tie_break", "field", "retention", "redact", "unmapped", "freshness", "grants", "classification", "pii",
    "assert", "min", "max", "regex", "values", "allow", "forbid", "form", "canonical", "required",
    "spec_version", "mapping_version", "catalog_version", "marts_version", "entities", "relationships",
    "reconcile", "coverage", "tolerance", "relationship", "name", "expr", "target", "source",
]


def _trees() -> dict[str, dict[str, str]]:
    return {tree.name: {p.name: p.read_text(encoding="utf-8") for p in sorted(tree.glob("*.y*ml"))}
            for tree in sorted(VALID.iterdir()) if tree.is_dir()}


BASE = _trees()


# -- mutations on data ----------------------------------------------------------------------------
def _nodes(value, path=()):
    """Every (path, value) in a loaded document."""
    yield path, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _nodes(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _nodes(v, path + (i,))


def _get(doc, path):
    for p in path:
        doc = doc[p]
    return doc


def _hostile_string(rng: random.Random, base: str) -> str:
    bit = rng.choice(HOSTILE)
    where = rng.randrange(len(base) + 1)
    return rng.choice([bit, base[:where] + bit + base[where:], base + bit, bit + base])


def _typo(rng: random.Random, word: str) -> str:
    if not word:
        return rng.choice(TOKENS)
    i = rng.randrange(len(word))
    return rng.choice([word[:i] + word[i + 1:], word[:i] + rng.choice("abxyz_") + word[i:], word + "s",
                       word.upper(), word[::-1], rng.choice(TOKENS)])


def mutate_data(rng: random.Random, doc):
    """One structural change; returns (doc, description)."""
    nodes = list(_nodes(doc))
    op = rng.choices(["delete", "rename", "retype", "hostile", "token", "graft", "wrap", "empty"],
                     weights=[3, 2, 2, 3, 5, 3, 1, 1])[0]
    strings = [(p, v) for p, v in nodes if isinstance(v, str) and p]
    if op in ("hostile", "token") and strings and rng.random() < 0.8:
        path, value = rng.choice(strings)  # mostly where text is expected, so the schema lets it through
    else:
        path, value = rng.choice(nodes)
    parent = _get(doc, path[:-1]) if path else None
    if not path:
        op = "retype" if rng.random() < 0.2 else "rename"
    if op == "delete" and path:
        del parent[path[-1]]
    elif op == "rename" and isinstance(value, dict) and value:
        key = rng.choice(list(value))
        new = _typo(rng, str(key))
        value[new] = value.pop(key)
        path = path + (key,)
    elif op == "retype" and path:
        parent[path[-1]] = copy.deepcopy(rng.choice(SCALARS))
    elif op == "retype":
        doc = copy.deepcopy(rng.choice(SCALARS))
    elif op == "hostile" and path:
        parent[path[-1]] = _hostile_string(rng, value if isinstance(value, str) else str(value))
    elif op == "token" and path:
        parent[path[-1]] = rng.choice(TOKENS)
    elif op == "graft" and path:
        # mostly a sibling-like subtree (same key or same list), so the result is often valid
        alike = [(p, v) for p, v in nodes if p and p[-1] == path[-1] and p != path
                 or (p[:-1] == path[:-1] and p != path)]
        other_path, other = rng.choice(alike) if alike and rng.random() < 0.7 else rng.choice(nodes)
        parent[path[-1]] = copy.deepcopy(other)
        op += f" from {list(other_path)}"
    elif op == "wrap" and path:
        parent[path[-1]] = rng.choice([[value], {rng.choice(TOKENS): value}])
    elif op == "empty" and path:
        parent[path[-1]] = type(value)() if isinstance(value, (dict, list, str)) else None
    else:
        return mutate_data(rng, doc)
    return doc, f"{op} at {list(path)}"


def _dump(doc) -> str:
    def represent_decimal(dumper, value):
        return dumper.represent_scalar("tag:yaml.org,2002:float", str(value))
    yaml.SafeDumper.add_representer(Decimal, represent_decimal)
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=120)


# -- mutations on text ----------------------------------------------------------------------------
def mutate_text(rng: random.Random, raw: bytes) -> tuple[bytes, str]:
    op = rng.choice(["truncate", "bytes", "inject", "delete_line", "duplicate_line", "swap_lines", "indent",
                     "word"])
    if op == "truncate":
        cut = rng.randrange(len(raw) + 1)
        return raw[:cut], f"truncate at {cut}"
    if op == "bytes":
        at = rng.randrange(len(raw) + 1)
        junk = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        return raw[:at] + junk + raw[at + rng.randint(0, 4):], f"random bytes {junk!r} at {at}"
    if op == "inject":
        at = rng.randrange(len(raw) + 1)
        bit = rng.choice(HOSTILE).encode("utf-8", "surrogatepass")
        return raw[:at] + bit + raw[at:], f"inject {bit!r} at {at}"
    lines = raw.split(b"\n")
    i = rng.randrange(len(lines))
    if op == "delete_line":
        del lines[i]
    elif op == "duplicate_line":
        lines.insert(i, lines[i])
    elif op == "swap_lines":
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
        op += f" {j}"
    elif op == "indent":
        lines[i] = lines[i][2:] if lines[i].startswith(b"  ") and rng.random() < 0.5 else b"  " + lines[i]
    else:
        words = lines[i].replace(b":", b" ").replace(b",", b" ").split()
        if words:
            word = rng.choice(words)
            lines[i] = lines[i].replace(word, rng.choice(TOKENS).encode(), 1)
    return b"\n".join(lines), f"{op} line {i + 1}"


# -- cases ----------------------------------------------------------------------------------------
def case_files(seed: int, n: int) -> tuple[str, dict[str, bytes | None], list[str]]:
    """Case n: (tree name, {file: new bytes, or None to delete}, description)."""
    rng = random.Random(seed * 1_000_003 + n)
    tree = rng.choice(sorted(BASE))
    files = BASE[tree]
    changed: dict[str, bytes | None] = {}
    what: list[str] = []
    for _ in range(rng.choice([1, 1, 1, 2])):
        name = rng.choice(sorted(files))
        roll = rng.random()
        if roll < 0.03:
            changed[name] = None
            what.append(f"{name}: deleted")
            continue
        if roll < 0.06:
            name_copy = "zz_copy_" + name
            changed[name_copy] = files[name].encode()
            what.append(f"{name_copy}: copy of {name}")
            continue
        current = changed.get(name) or files[name].encode()
        if roll < 0.75:
            try:
                doc = yaml.safe_load(current.decode("utf-8"))
            except Exception:
                doc = None
            if isinstance(doc, dict):
                for _ in range(rng.choice([1, 1, 1, 2, 3])):
                    doc, how = mutate_data(rng, doc)
                    what.append(f"{name}: {how}")
                changed[name] = _dump(doc).encode("utf-8", "surrogatepass")
                continue
        for _ in range(rng.choice([1, 1, 2])):
            current, how = mutate_text(rng, current)
            what.append(f"{name}: {how}")
        changed[name] = current
    return tree, changed, what


def case_text(seed: int, n: int) -> str:
    tree, changed, what = case_files(seed, n)
    parts = [f"tree {tree}: " + "; ".join(what)]
    for name, data in changed.items():
        parts.append(f"--- {name}\n" + ("(deleted)" if data is None else data.decode("utf-8", "replace")))
    return "\n".join(parts)


@pytest.fixture(scope="module")
def workdirs(tmp_path_factory):
    root = tmp_path_factory.mktemp("fuzz")
    dirs = {}
    for tree in BASE:
        dirs[tree] = root / tree / "specs"
        shutil.copytree(VALID / tree, dirs[tree])
    return dirs


@contextlib.contextmanager
def mutated(workdirs, tree: str, changed: dict):
    """The work copy of `tree` with `changed` applied (None: the file deleted), restored after."""
    root = workdirs[tree]
    try:
        for name, data in changed.items():
            if data is None:
                (root / name).unlink()
            else:
                (root / name).write_bytes(data)
        yield root
    finally:
        for name in changed:
            original = BASE[tree].get(name)
            if original is None:
                (root / name).unlink(missing_ok=True)
            else:
                (root / name).write_text(original, encoding="utf-8")


def run_case(workdirs, seed: int, n: int) -> str | None:
    """None when the outcome is acceptable, else a report."""
    tree, changed, what = case_files(seed, n)
    with mutated(workdirs, tree, changed) as root:
        try:
            project = check_project(root)
            if EMIT:
                from bloomery.emit.dbt import render
                render(project)
        except BloomeryErrors as exc:
            unlocated = [e for e in exc.collected if not isinstance(e, BloomeryError) or not e.location.file]
            if not exc.collected or unlocated:
                return f"case {n} ({'; '.join(what)}): errors without a file: {unlocated or 'empty aggregate'}"
        except BloomeryError as exc:
            if not exc.location.file and not EMIT:
                return f"case {n} ({'; '.join(what)}): {type(exc).__name__} without a file: {exc}"
        except Exception as exc:  # the bug this test exists to find
            return (f"case {n} ({'; '.join(what)}): {type(exc).__name__}: {exc}\n"
                    + "".join(traceback.format_exception(exc)[-6:]))
    return None


@pytest.mark.parametrize("chunk", range((CASES + CHUNK - 1) // CHUNK))
def test_mutated_specs_compile_or_fail_with_located_errors(workdirs, chunk):
    failures = []
    for n in range(chunk * CHUNK, min(CASES, (chunk + 1) * CHUNK)):
        report = run_case(workdirs, SEED, n)
        if report:
            failures.append(report)
    assert not failures, f"{len(failures)} case(s) crashed (seed {SEED}):\n\n" + "\n\n".join(failures[:5])


def test_mutations_are_reproducible():
    assert case_text(SEED, 17) == case_text(SEED, 17)
    assert case_files(SEED, 17) != case_files(SEED, 18)


def test_mutations_reach_every_stage(workdirs):
    """The fuzz is only worth its time if mutated trees get past parsing, and some stay clean."""
    from collections import Counter
    stages = Counter()
    for n in range(300):
        tree, changed, _ = case_files(SEED, n)
        with mutated(workdirs, tree, changed) as root:
            try:
                check_project(root)
                stages["clean"] += 1
            except BloomeryErrors as exc:
                stages.update({e.stage for e in exc.collected})
            except BloomeryError as exc:
                stages[exc.stage] += 1
    assert {"parse", "resolve", "typecheck", "guardrail", "clean"} <= set(stages), stages
