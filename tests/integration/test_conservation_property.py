"""The conservation law as a property, on DuckDB and on PostgreSQL.

Hypothesis generates scenarios for the property spec tree (integration_tests/corpus/property/specs:
an `account` parent and an `entry` child with a composite key, dedupe with a tie-break, an
`unknown_member` and a `quarantine` referential, quarantine and flag rules, no `fail` rule), built
with both entities `incremental_by_key` (as the tree declares) or with one of them `full`, and as
it is or as the `fkkey` tree (one scenario in seven), where the child's key includes the foreign
key its `unknown_member` rule rewrites, so the entity is identified by the delivered key
(`_bloomery_delivered__account_id`), or as a merged tree (two draws in seven between them), where
`account` is a merged entity: a second mapping reads a second bronze relation, `prop__accounts_b`
(its own column names, the same rules; the `wide` variant widens the first mapping only), whose
source row ids reuse the first's, so every delivery is identified by its bronze relation too
(`_source` in the entity, `source_relation` in the reject table and the ledger):

  - `merged` (built incremental or with `account` full): dedupe runs across both relations, the
    bronze relation name its last tie-break, and an incremental batch re-reads every row of a
    touched key from either relation;
  - `merged_nodedupe` (incremental, or with `entry` full): `account` declares no dedupe, each
    relation delivers a key from one source row, often a key the other relation delivered in an
    earlier load. The generator plays each step on the model first and drops the account rows
    of a load that would stop its build on `account_source_collision` (a refresh or a deletion
    that would is a replay instead), so every build passes; a reject of one relation that passes
    after the widening while the other relation publishes its key is then replay's to decide,
    and it stays unresolved with `(source_collision)` first in its failed rules, never a second
    row for the key.

Or, in two draws of seven, as one of the type 2 trees (pm.TYPE2): the parent `account` keeps
history (`scd: type2`, a dbt snapshot of its kept rows), with its dedupe (`scd2`) or without it
(`scd2_plain`, where the compiler implies the same delivery order); there every delivery of a key
is a version, a re-delivery is a new version or no change, and replay writes a passing reject back
to bronze (`_load_id` `__replay__`, read back from bronze into the model) for the next build to
version.

A scenario is a few steps; a load step lands one to three parts in bronze and then builds:

  - a fresh load (its own `_load_id`) of parents, children or both, so parent and child loads
    interleave and children often arrive before their parents; cells mix clean values, failed
    casts, NULLs and empty strings, duplicates with recency ties, re-deliveries of a
    `_source_row_id` (same key, new values, sometimes an older `_ingested_at`), orphans and every
    rule's violations;
  - a late part of a load an earlier step already judged: the same `_load_id`, an older
    `_ingested_at`, new source rows and re-deliveries;
  - a retry of a whole load: the same rows again under a new `_load_id`, with the same, newer or
    older timestamps, sometimes spelled `YYYY-MM-DDTHH:MM:SS` (another identity, the same instant);
  - the same load appended twice: rows identical to an earlier load's, identity included;
  - a correction: earlier source rows (often diverted ones) delivered again clean under their key
    in a new, newer load (a re-delivery replaces the earlier ones; a fixed row leaves the reject
    table).
Between loads: replays (after a spec widening, a narrowing back, or plain), full refreshes, and a
whole load deleted from both bronze relations followed by a build (bronze is a window: its
deliveries keep their verdicts, and their rows on an incremental entity).
After every step:

  - rows lost: 0. Every bronze row is in the entity (without the Unknown member), in an
    unresolved reject, or a dedupe loser, with the losers computed in Python from the bronze rows
    and the dedupe order alone (against the deliveries of deleted loads the warehouse still
    holds too), as multisets of delivery identities;
  - every bronze row is where the pure-Python model (property_model.py) says: entity, reject or
    deduped, with the exact values, flags, failed rules, key_values, raw payload, first_seen and
    last_seen; the ledger holds exactly the model's verdicts (route and winner_row_id);
  - a type 2 entity: its snapshot holds exactly the model's versions of every key, in the order
    they were made, each closed when the next was made and the last one current (one current
    version per key), the Unknown member one current version; in the law below its entity rows
    are the ledger's kept deliveries of the current versions' source rows (a version is matched
    by source row, as the conservation audit matches it), and a dedupe loser is every bronze row
    placed nowhere but its key's newest delivery, which must be placed;
  - no reject_id twice; first_seen never moves for a reject_id.
The blocking conservation audits run in every build too, so a false alarm fails the example as
surely as a lost row.

Examples are derandomized (the same ones on every run). A failing example is kept in
property_regressions.json (its "steps", its "mix" when not "incremental", its "tree" when not
"base") and replayed first,
on both engines, forever; while its bug is open it carries "open" and must fail.
BLOOMERY_PROPERTY_EXAMPLES overrides the number of generated examples on DuckDB (60 by default,
half here and half in test_conservation_property_shares.py, so two workers share them),
BLOOMERY_PROPERTY_EXAMPLES_PG on PostgreSQL (20 by default, test_conservation_property_postgres.py);
0 replays the regressions alone. Each engine's tests carry its mark: `-m duckdb` runs DuckDB's alone.
"""
from __future__ import annotations

import copy
import datetime as dt
import json
import os
import re
import shutil
import time
from collections import Counter
from dataclasses import astuple
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, example, given, note, seed, settings
from hypothesis import strategies as st

from bloomery.cli import main as bloomery_main

from . import property_model as pm
from .harness import INTEGRATION
from .reused_project import ReusedDuckProject, ReusedPgProject

SPECS = INTEGRATION / "corpus" / "property" / "specs"
REGRESSIONS = Path(__file__).with_name("property_regressions.json")
EXAMPLES = {"duckdb": int(os.environ.get("BLOOMERY_PROPERTY_EXAMPLES", "60")),
            "postgres": int(os.environ.get("BLOOMERY_PROPERTY_EXAMPLES_PG", "20"))}
STATS = {engine: Counter() for engine in EXAMPLES}
# Every model of both entities and their conservation audits. The quality mart and what reads it
# (the quarantine-rate view and tests, the drift view and tests) have tests of their own, and the
# ingestion-metadata audits guard metadata this generator always writes well-formed.
BUILD = ["--exclude", "mart_data_quality+", "account_ingestion_metadata", "entry_ingestion_metadata"]


def manifest(variant: str, mix: str = "incremental", tree: str = "base") -> str:
    """The name of a parsed spec tree in the reused project: a tree, a spec variant and a mix."""
    return f"{variant}/{mix}" if tree == "base" else f"{tree}/{variant}/{mix}"


def spec_tree(tmp: Path, variant: str, mix: str, tree: str = "base") -> Path:
    """The property tree (pm.TREES) as a variant (`wide`: pm.WIDEN) and a mix of materializations
    (pm.MIXES)."""
    if variant == "base" and mix == "incremental" and tree == "base":
        return SPECS
    out = tmp / f"specs_{tree}_{variant}_{mix}"
    shutil.copytree(SPECS, out)
    for edits in (pm.TREES[tree], pm.WIDEN if variant == "wide" else {}):
        for name, (old, new) in edits.items():
            if old is None:                 # a file the tree adds (the merged trees' second mapping)
                (out / name).write_text(new)
                continue
            text = (out / name).read_text()
            assert old in text, name
            (out / name).write_text(text.replace(old, new))
    path = out / "entity_model.yaml"
    text = path.read_text()
    for entity, kind in pm.MIXES[mix].items():
        text, n = re.subn(rf"(\n  {entity}:\n(?:    .*\n)*?    ){re.escape(pm.MATERIALIZED)}\n",
                          rf"\1materialization: {kind}\n", text)
        assert n == 1, (entity, mix)
    path.write_text(text)
    return out


def compiled_as(specs: Path, tmp: Path, mix: str, tree: str):
    """The compiler carries each entity's declared materialization into the models it writes
    (the IR the macros read): a `full` entity judges all of bronze on every build."""
    out = tmp / f"compiled_{tree}_{mix}"
    assert bloomery_main(["compile", "--specs", str(specs), "--out", str(out)]) == 0
    for entity, kind in pm.MIXES[mix].items():
        # a type 2 entity's rows are `<entity>__kept`, which its snapshot versions
        text = next(f for f in (out / f"{entity}.sql", out / f"{entity}__kept.sql") if f.exists()).read_text()
        assert f'"materialization": "{kind}"' in text, (
            f"{entity} is declared `{kind}` in the {mix} mix, and its compiled model does not say so "
            "(python/bloomery/resolve/ir.py: materialization)")


def project_fixture(engine: str):
    """The module's reused project on `engine`. One parsed manifest per spec variant and mix, so a
    scenario switches between them without parsing. The property runs in three modules, each on one
    pytest-xdist worker at most (`--dist loadfile`): this one (DuckDB, the first share of its
    examples, and the idempotence tests), test_conservation_property_shares.py (DuckDB's second
    share) and test_conservation_property_postgres.py (PostgreSQL, every test here)."""
    mark = pytest.mark.duckdb if engine == "duckdb" else pytest.mark.postgres

    @pytest.fixture(scope="module", params=[pytest.param(engine, marks=mark)])
    def project(request, tmp_path_factory):
        tmp = tmp_path_factory.mktemp(f"property_{request.param}")
        variants = {}
        for tree in pm.TREES:
            for mix in pm.mixes(tree):
                for variant in ("base", "wide"):
                    variants[manifest(variant, mix, tree)] = spec_tree(tmp, variant, mix, tree)
                compiled_as(variants[manifest("base", mix, tree)], tmp, mix, tree)
        if request.param == "duckdb":
            project = ReusedDuckProject(tmp, variants)
        else:
            project = ReusedPgProject(tmp, request.getfixturevalue("pg_server"), variants)
        yield project
        project.close()
    return project


project = project_fixture("duckdb")
# This module's share of the engine's generated examples: (share, shares). Share 0 also replays the
# kept regressions and draws the derandomized sequence; share k > 0 draws from seed k.
SHARE = (0, 2)


# -- generated bronze -----------------------------------------------------------------------------
MISSING = "<missing>"        # a JSON key the document does not carry (json_extract: NULL, like a JSON null)


def pick(*values):
    return st.sampled_from(values)


account_id = pick("A1", "A1", "A2", "A2", "A3", " A1 ", "A2  ", "", None)
tier = pick("basic", "Basic", "PRO", "gold", "premium", "legacy", "", "platinum", None)
score = st.one_of(st.integers(-20, 150).map(str), st.integers(0, 100).map(lambda n: f" {n} "),
                  pick("", "x", "1.2.3", "   ", None))
iso_dates = st.dates(dt.date(1990, 1, 1), dt.date(2030, 12, 31)).map(dt.date.isoformat)
opened = st.one_of(iso_dates, pick("2021-02-30", "", "soon", "31/12/2023", None))
entry_id = pick("E1", "E1", "E2", "E2", " E1 ", "", None, MISSING)
line = pick("1", "1", "2", "2", " 3 ", "007", "x", "", None, MISSING)
fk = pick("A1", "A1", "A2", "A3", " A3 ", "Z9", "a1", "", None, MISSING)
code = pick("AB1", "ab1", " xy9 ", "abc", "AB12", "", None, MISSING)
cents = st.integers(-5000, 1_500_000).map(lambda c: f"{'-' if c < 0 else ''}{abs(c) // 100}.{abs(c) % 100:02d}")
amount = st.one_of(cents, pick("12,50", "", "abc", "99999999999.99", None, MISSING))


# half the rows are drawn clean, so kept rows, their dedupe and their replacement are as common
# as diverted ones; a quarter are clean but for one defect a later step can cure (the widened enum,
# the pattern relaxed to a flag, the payer's account arriving), so a held delivery that would pass
# now is common too; a quarter are dirty
clean_account = {"id": pick("A1", "A2", "A3", "A1", "A2", "A3", "A4"), "tier": pick("basic", "pro", "gold", "premium"),
                 "score": st.integers(0, 100).map(str), "opened": iso_dates}
clean_entry = {"entry": pick("E1", "E2"), "line": pick("1", "2", "3"), "account": pick("A1", "A2", "A3"),
               "payer": pick("A1", "A2", "A3"), "code": pick("AB1", "cd2"), "amount": st.integers(0, 500_000).map(
                   lambda c: f"{c // 100}.{c % 100:02d}")}
curable_account = {**clean_account, "tier": pick("legacy", "Legacy")}
curable_entry = [{**clean_entry, "code": pick("abc", "ab")}, {**clean_entry, "payer": pick("A4")}]


def payload(doc: dict) -> str:
    return json.dumps({k: v for k, v in doc.items() if v != MISSING})


EPOCH = dt.datetime(2024, 3, 1)


def spell(at: dt.datetime, t: bool = False) -> str:
    """An `_ingested_at` as a loader writes it: 'YYYY-MM-DD HH:MM:SS', or with a 'T'."""
    return at.strftime("%Y-%m-%dT%H:%M:%S" if t else "%Y-%m-%d %H:%M:%S")


class Bronze:
    """What a scenario has landed so far: every row by load (in landing order), every source row
    id's deliveries, and the identities taken. One (source row, load, instant) is one delivery:
    two rows share it only as verbatim copies (a load appended twice), since rows tied on the whole
    dedupe order with different cells would leave the winner to the engine."""

    def __init__(self, tree: str = "base"):
        self.tree = tree
        self.loads: dict[str, dict[str, list]] = {}
        self.delivered = {table: [] for table in pm.tables(tree)}
        self.settled: dict[str, set] = {}        # merged_nodedupe: account keys by relation, as of the last build
        self.taken: set = set()
        self.sids = Counter()
        self.counter = 0

    def new_load(self) -> str:
        self.counter += 1
        return f"L{self.counter}"         # L10 sorts before L9: the tie-break goes both ways

    def add(self, table: str, row: tuple, copy: bool = False) -> bool:
        taken = (table, row[-1], row[-3], pm.instant(row[-2]))
        if taken in self.taken and not copy:
            return False
        self.taken.add(taken)
        self.loads.setdefault(row[-3], {t: [] for t in pm.tables(self.tree)})[table].append(row)
        self.delivered[table].append(row)
        return True

    def remove(self, table: str, row: tuple):
        """Take back a row `add` took (the merged_nodedupe generator drops a row that would stop
        the build): its last copy."""
        rows = self.loads[row[-3]][table]
        del rows[len(rows) - 1 - rows[::-1].index(row)]
        del self.delivered[table][len(self.delivered[table]) - 1 - self.delivered[table][::-1].index(row)]
        if row not in self.delivered[table]:
            self.taken.discard((table, row[-1], row[-3], pm.instant(row[-2])))
        if not any(self.loads[row[-3]].values()):
            del self.loads[row[-3]]


def fresh_row(draw, bronze: Bronze, table: str, load: str, ts: str, again_odds: int, original=None, quality=None):
    """A new source row, or (one time in `again_odds`) a re-delivery of an earlier one: the same
    key cells (a source row keeps its key), new values. A correction passes the `original` and
    `quality` "clean"."""
    earlier = bronze.delivered[table]
    if original is None:
        original = draw(st.sampled_from(earlier)) if earlier and draw(st.integers(1, again_odds)) == 1 else None
    if original is None:
        bronze.sids[table] += 1
    sid = original[-1] if original else f"{table[6]}{bronze.sids[table]}"
    # (merged_nodedupe: a curable row of the first relation, quarantined until the widened enum
    # frees it on replay, is how a key the other relation publishes meets a passing candidate)
    quality = quality or draw(pick("clean", "curable", "curable", "dirty") if bronze.tree == "merged_nodedupe" and table == pm.ACCOUNTS
                              else pick("clean", "clean", "curable", "dirty"))
    if table in (pm.ACCOUNTS, pm.ACCOUNTS_B):
        c = {"clean": clean_account, "curable": curable_account,
             "dirty": {"id": account_id,
                       "tier": tier, "score": score, "opened": opened}}[quality]
        key_cell = original[0] if original else (
            nodedupe_account_key(draw, bronze, table) if bronze.tree == "merged_nodedupe" else draw(c["id"]))
        return (key_cell, draw(c["tier"]), draw(c["score"]), draw(c["opened"]), load, ts, sid)
    c = {"clean": clean_entry, "curable": draw(st.sampled_from(curable_entry)),
         "dirty": {"entry": entry_id, "line": line, "account": fk, "code": code, "amount": amount,
                   "payer": fk.filter(lambda v: v != MISSING)}}[quality]
    if original:
        doc = json.loads(original[0])
        key_doc = {"entry": doc.get("entry", MISSING), "line": doc.get("line", MISSING)}
        if bronze.tree == "fkkey":          # the account is a key cell there
            key_doc["account"] = doc.get("account", MISSING)
    else:
        key_doc = {"entry": draw(c["entry"]), "line": draw(c["line"])}
    doc = {**key_doc, "account": key_doc.get("account", draw(c["account"])), "code": draw(c["code"]),
           "amount": draw(c["amount"])}
    return (payload(doc), draw(c["payer"]), load, ts, sid)


TABLES = {"both": (pm.ACCOUNTS, pm.ENTRIES), "parents": (pm.ACCOUNTS,), "children": (pm.ENTRIES,)}


def tables_of(what: str, tree: str) -> tuple:
    """The bronze relations a part lands in: in the merged trees `account` has two."""
    if not pm.merged(tree) or what == "children":
        return TABLES[what]
    return ((pm.ACCOUNTS, pm.ACCOUNTS_B) if what == "parents" else (pm.ACCOUNTS, pm.ACCOUNTS_B, pm.ENTRIES))


def load_part(draw, bronze: Bronze, step: int, part: int, judged: list[str]) -> tuple[str, list]:
    """One part of a load step: (what it is, [(table, row), ...])."""
    kinds = ["fresh"] * 3 + ["late"] * 2 * bool(judged) + ["retry", "twice"] * bool(bronze.loads) + ["correct"] * 2 * bool(judged)
    kind = "fresh" if step == part == 0 else draw(st.sampled_from(kinds))
    rows = []
    if kind == "correct":
        # the source fixes rows it delivered (often diverted ones) and delivers them again in a new
        # load, newer than anything before: the same key cells, clean values
        load = bronze.new_load()
        at = spell(EPOCH + dt.timedelta(hours=6 + 3 * step + part + 2))
        seen = set()
        for _ in range(draw(st.integers(1, 3))):
            table = draw(pick(*tables_of("both", bronze.tree)))
            if not bronze.delivered[table]:
                continue
            original = draw(st.sampled_from(bronze.delivered[table]))
            if original[-1] in seen:
                continue
            row = fresh_row(draw, bronze, table, load, at, 1, original=original, quality="clean")
            if bronze.add(table, row):
                seen.add(original[-1])
                rows.append((table, row))
        return "correction", rows
    if kind == "fresh":
        # parents, children or both: parent and child loads interleave
        tables = draw(pick("both", "both", "children") if step == part == 0 else pick("both", "both", "parents", "children"))
        load = bronze.new_load()
        for table in tables_of(tables, bronze.tree):
            seen = set()
            for _ in range(draw(st.integers(1, 6))):
                hour = max(0, 6 + 3 * step + part + draw(st.integers(-4, 1)))
                row = fresh_row(draw, bronze, table, load, spell(EPOCH + dt.timedelta(hours=hour)), 5)
                if row[-1] not in seen and bronze.add(table, row):     # one delivery of a source row per load
                    seen.add(row[-1])
                    rows.append((table, row))
        return f"fresh {tables}", rows
    if kind == "late":
        # more rows of a load an earlier step judged, ingested before any of its rows
        load = draw(st.sampled_from(judged))
        oldest = min(pm.instant(r[-2]) for table in tables_of("both", bronze.tree) for r in bronze.loads[load][table])
        for table in tables_of(draw(pick("both", "parents", "children")), bronze.tree):
            for _ in range(draw(st.integers(1, 4))):
                at = max(EPOCH, oldest - dt.timedelta(hours=draw(st.integers(0, 3))))
                row = fresh_row(draw, bronze, table, load, spell(at), 2)
                if bronze.add(table, row):
                    rows.append((table, row))
        return "late", rows
    load = draw(st.sampled_from(sorted(bronze.loads, key=lambda name: int(name[1:]))))
    original = [(table, row) for table in tables_of("both", bronze.tree) for row in bronze.loads[load][table]]
    if kind == "twice":
        # the loader appends a load it already delivered: the same rows, identity included
        for table, row in original:
            bronze.add(table, row, copy=True)
            rows.append((table, row))
        return "twice", rows
    # a retry: every row of the load again under a new _load_id, its timestamps shifted (or not)
    retry = bronze.new_load()
    shift = dt.timedelta(hours=draw(pick(0, 0, 1, 2, -1, -3)))
    t = draw(pick(False, False, False, True))
    for table, row in original:
        row = (*row[:-3], retry, spell(max(EPOCH, pm.instant(row[-2]) + shift), t), row[-1])
        if bronze.add(table, row):
            rows.append((table, row))
    return "retry", rows


# the type 2 trees (pm.TYPE2) take a share of the draws, within the same example budget, with
# every step and cell the other trees get (NULL account keys and deleted loads included)
SCD2_TREES = ("scd2", "scd2_plain")


@st.composite
def scenarios(draw):
    """{"mix": a key of pm.MIXES, "tree": a key of pm.TREES, "steps": [...]}. A load step lands
    one to three parts in bronze and then builds; its rows are bronze text; its "parts" say what
    each part was (statistics)."""
    tree = draw(pick("base", "base", "fkkey", "merged", "merged_nodedupe", *SCD2_TREES))
    mix = draw(pick(*(m for m in ("incremental", "incremental", "entry_full", "account_full") if m in pm.mixes(tree))))
    bronze, judged, steps = Bronze(tree), [], []
    model = pm.Warehouse(mix, tree) if tree == "merged_nodedupe" else None
    for i in range(draw(pick(1, 2, 2, 3, 3, 3, 4))):
        kind = "load" if i == 0 else draw(pick(*["load"] * 5, *["replay"] * 4, "refresh", *["delete"] * 3))
        kind = "refresh" if kind == "delete" and not bronze.loads else kind
        step = {"do": kind, "variant": draw(pick("base", "wide")) if i else "base"}
        if model is not None and kind in ("refresh", "delete"):
            if kind == "delete":
                step["load"] = draw(st.sampled_from(sorted(bronze.loads, key=lambda name: int(name[1:]))))
            if not passes(model, step):
                # it would stop on account_source_collision: the user replays instead
                kind, step = "replay", {"do": "replay", "variant": step["variant"]}
        if kind == "delete":
            # the user trims bronze: a whole load (both relations) deleted, then a build
            step.setdefault("load", draw(st.sampled_from(sorted(bronze.loads, key=lambda name: int(name[1:])))))
            del bronze.loads[step["load"]]
            judged = [load for load in judged if load != step["load"]]
        if kind == "replay":
            step["entities"] = draw(pick(["account"], ["entry"], ["account", "entry"]))
        if kind == "load":
            for table in pm.tables(tree):
                step[table] = []
            step["parts"] = []
            for part in range(draw(pick(1, 1, 2, 3))):
                what, rows = load_part(draw, bronze, i, part, judged)
                step["parts"].append(what)
                for table, row in rows:
                    step[table].append(row)
            if model is not None:
                keep_the_builds_passing(model, bronze, step)
                for table in (pm.ACCOUNTS, pm.ACCOUNTS_B):
                    bronze.settled[table] = {pm.trim(r[0]) for r in bronze.delivered[table]}
            landed = {row[-3] for table in pm.tables(tree) for row in step[table]}
            judged += sorted(landed - set(judged))
        if model is not None:
            play_model(model, step)
        steps.append(step)
    return {"mix": mix, "tree": tree, "steps": steps}


# -- merged_nodedupe: the generator lands no load that would stop a build -----------------------
def nodedupe_account_key(draw, bronze: Bronze, table: str) -> str:
    """A new source row's account id in `merged_nodedupe`, where nothing decides between two rows
    of one key: a key of its own relation's never used by another source row there (a relation
    delivering one key twice is `key_unique`'s fault, not this shape's), often one the other
    relation has delivered (the collision the shape is about), sometimes spelled with spaces."""
    mine = {pm.trim(r[0]) for r in bronze.delivered[table]}
    other = pm.ACCOUNTS_B if table == pm.ACCOUNTS else pm.ACCOUNTS
    theirs = sorted(bronze.settled.get(other, set()) - mine)     # judged by an earlier build
    if theirs and draw(st.integers(1, 3)) > 1:
        key = draw(st.sampled_from(theirs))
    else:
        prefix = "A" if table == pm.ACCOUNTS else "B"
        key = next(f"{prefix}{n}" for n in range(1, 1000) if f"{prefix}{n}" not in mine | set(theirs))
    return draw(pick(key, key, f" {key} "))


def play_model(model: pm.Warehouse, step: dict):
    """A step on the generator's model, as `run` plays it on the warehouse and its model."""
    model.variant = step["variant"]
    if step["do"] == "load":
        for table in pm.tables(model.tree):
            model.bronze[table] += [pm.Delivery(table, r[:-3], *r[-3:]) for r in step[table]]
        model.build()
    elif step["do"] == "delete":
        model.delete_load(step["load"])
        model.build()
    elif step["do"] == "refresh":
        model.build(full_refresh=True)
    else:
        for name in step["entities"]:
            model.replay(name)


def passes(model: pm.Warehouse, step: dict) -> bool:
    """Whether a build step leaves the blocking audits passing (played on a copy)."""
    trial = copy.deepcopy(model)
    play_model(trial, step)
    return not trial.blocking_audits()


def keep_the_builds_passing(model: pm.Warehouse, bronze: Bronze, step: dict):
    """Drop the account rows of a load step whose key would stop its build (a key both relations
    claim: `account_source_collision`), until it passes. A row re-judged later (a held reject of
    one relation while the other publishes its key) is what the replay contest then decides."""
    while not passes(model, step):
        trial = copy.deepcopy(model)
        play_model(trial, step)
        keys = {key for _, key in trial.blocking_audits()}
        dropped = False
        for table in (pm.ACCOUNTS, pm.ACCOUNTS_B):
            for row in list(step[table]):
                if (pm.trim(row[0]),) in keys:
                    step[table].remove(row)
                    bronze.remove(table, row)
                    dropped = True
        assert dropped, f"a build would stop on {trial.blocking_audits()} with no row of this step to drop"


# -- what the warehouse holds -------------------------------------------------------------------
JSON_COLUMNS = {"key_values", "raw"}     # json on DuckDB, jsonb on PostgreSQL


def read(project, sql: str) -> list[dict]:
    """Rows as one engine-independent spelling, the only place values read back are normalized:
    an array (a DuckDB list, a PostgreSQL text[], both read as a list) is a tuple, and a JSON
    document is decoded (DuckDB hands json over as text, psycopg2 decodes jsonb itself). Every
    other value already reads the same on both: text, int, bool, Decimal, date, naive datetime."""
    def value(name, v):
        if isinstance(v, list):
            return tuple(v)
        if name in JSON_COLUMNS and isinstance(v, str):
            return json.loads(v)
        return v
    return [{name: value(name, v) for name, v in r.items()} for r in project.rows(sql)]


def entity_rows(project, e) -> list[tuple]:
    """Each row in table order; the delivered key (pm.DELIVERED, where the tree has one) and the
    bronze relation (`_source`, a merged entity's) first."""
    rows = read(project, f'select * from main."{e.name}"')
    return [tuple(r.pop(c) for c in (pm.DELIVERED, "_source") if c in r) + tuple(r.values()) for r in rows]


def expected_rows(e, tree: str) -> Counter:
    delivered = e.name == "entry" and tree == "fkkey"
    source = len(e.sources) > 1
    return Counter(((j.key[2],) if delivered else ()) + ((j.delivery.table,) if source else ())
                   + (*j.values, j.delivery.load, j.delivery.ts, j.delivery.sid, j.fired, not j.fired)
                   for j in e.kept.values())


# -- a type 2 entity: its snapshot --------------------------------------------------------------
SNAPSHOT = ("dbt_scd_id", "dbt_updated_at", "dbt_valid_from", "dbt_valid_to")


def version_row(j) -> tuple:
    """A version as the snapshot holds it: the delivery that made it (an unchanged re-delivery
    of its source row is no change: the version keeps its first delivery's `_load_id` and
    `_ingested_at`)."""
    return (*j.values, j.delivery.load, j.delivery.ts, j.delivery.sid, j.fired, not j.fired)


def check_versions(project, e, where: str) -> list[tuple]:
    """The snapshot against the model: the Unknown member one current version; every key's
    versions in the order they were made (dbt_valid_from), each closed when the next was made,
    the last current; returns the ledger's kept delivery of each current version, as entity rows
    (..., _load_id, _ingested_at, _source_row_id, _quality_flags, _quality_ok), for the law. A
    version is matched to the ledger by its source row, as the conservation audit matches it."""
    rows = read(project, f'select * from main."{e.name}" order by dbt_valid_from, _source_row_id')
    history: dict[tuple, list] = {}
    for r in rows:
        stamps = [r.pop(c) for c in SNAPSHOT]
        row = tuple(r.values())
        # the model's partition (Judged.partition): the key, and the source row for a NULL key
        partition = (row[0],) + ((None, None) if row[0] is not None else (e.source, row[-3]))
        history.setdefault(partition, []).append((row, stamps[2], stamps[3]))
    member = history.pop((pm.UNKNOWN, None, None), [])
    assert [(row, to) for row, _, to in member] == [((pm.UNKNOWN, None, None, None, None, None, None, (), True), None)], (
        f"{where}: Unknown member {member}")
    for partition, versions in history.items():
        for (_, _, to), (_, since, _) in zip(versions, versions[1:]):
            assert to == since, f"{where}: {e.name} {partition}: a version closed at {to}, its successor made at {since}"
    got = {p: [(row, to is None) for row, _, to in v] for p, v in history.items()}
    want = {p: [(version_row(j), n == len(h) - 1) for n, j in enumerate(h)] for p, h in e.versions.items()}
    assert got == want, (f"{where}: {e.name} versions\n  missing {sorted(((p, v) for p, v in want.items() if got.get(p) != v), key=repr)}"
                         f"\n  unexpected {sorted(((p, v) for p, v in got.items() if want.get(p) != v), key=repr)}")
    current = {row[-3] for v in history.values() for row, _, to in v if to is None}
    kept = read(project, f'select _source_row_id, _load_id, _ingested_at from main."{e.name}__ledger" where route = \'keep\'')
    return [(None, r["_load_id"], r["_ingested_at"], r["_source_row_id"], None, None) for r in kept
            if r["_source_row_id"] in current]


def expected_rejects(e, tree: str) -> dict:
    out = {}
    keys = ["account_id"] if e.name == "account" else pm.KEYS[tree]
    for (source, sid), r in e.rejects.items():
        d = r.judged.delivery
        out[pm.reject_id(source, sid)] = {
            "source_relation": source, "mapping": f"{source}->{e.name}", "mapping_version": 1,
            "failed_rules": r.failed_rules, "key_values": dict(zip(keys, r.judged.key)), "raw": d.raw(),
            "_load_id": d.load, "_ingested_at": d.ts, "_source_row_id": sid,
            "first_seen": r.first_seen, "last_seen": pm.instant(d.ts),
            "resolved": r.resolved, "evaluated": r.evaluated}
    return out


def actual_rejects(project, e) -> dict:
    out = {}
    rows = read(project, f'select * from main."{e.name}__reject"')
    ids = Counter(r["reject_id"] for r in rows)
    assert max(ids.values(), default=1) == 1, f"reject_id twice in {e.name}__reject: {ids.most_common(3)}"
    for r in rows:
        rid, resolved, evaluated = r.pop("reject_id"), r.pop("resolved_at"), r.pop("last_evaluated_at")
        out[rid] = {**r, "resolved": resolved is not None, "evaluated": evaluated is not None}
    return out


def diff(actual: Counter, expected: Counter) -> str:
    return f"missing {sorted(map(repr, expected - actual))}\n  unexpected {sorted(map(repr, actual - expected))}"


def check(project, wh: pm.Warehouse, first_seen: dict, where: str) -> int:
    """Every table against the model, and the conservation law; returns the rows lost (0, or the
    assert fails first)."""
    lost_rows = 0
    for e in wh.entities:
        bronze = Counter()
        for source in e.sources:
            bronze += Counter((source, *i) for i in project.query(f'select _source_row_id, _load_id, _ingested_at from main."{source}"'))
        assert bronze == Counter(d.identity() for d in wh.bronze_of(e)), f"{where}: {e.sources} as landed"
        bronze -= wh.pending(e)       # a type 2 replay's re-deliveries wait for the next build
        held = set(bronze)
        merged = len(e.sources) > 1
        if e.scd2:
            kept = check_versions(project, e, where)
        else:
            rows = entity_rows(project, e)
            members = [r for r in rows if r[-3] is None]
            kept = [r for r in rows if r[-3] is not None]
            if e is wh.account:
                member = (pm.UNKNOWN, None, None, None, None, None, None, (), True)
                assert members == [(None,) * merged + member], f"{where}: Unknown member {members}"
            else:
                assert members == [], where
            want = expected_rows(e, wh.tree)
            assert Counter(kept) == want, f"{where}: {e.name} rows\n  {diff(Counter(kept), want)}"

        rejects = actual_rejects(project, e)
        want = expected_rejects(e, wh.tree)
        assert rejects.keys() == want.keys(), f"{where}: {e.name}__reject ids: {set(rejects) ^ set(want)}"
        for rid, r in rejects.items():
            assert r == want[rid], f"{where}: {e.name}__reject {r['_source_row_id']}: {r} != {want[rid]}"
            assert first_seen.setdefault((e.name, rid), r["first_seen"]) == r["first_seen"], f"{where}: first_seen moved"

        ledger = Counter(project.query(f'select source_relation, _source_row_id, _load_id, _ingested_at, route, winner_row_id from main."{e.name}__ledger"'))
        verdicts = Counter(astuple(v) for v in e.ledger)
        assert ledger == verdicts, f"{where}: {e.name}__ledger\n  {diff(ledger, verdicts)}"

        # the conservation law: every bronze row in the entity, in an unresolved reject, or a
        # dedupe loser counted from bronze and the dedupe order alone; nothing else, nothing twice
        # (bronze is a window: a delivery of a load the user deleted may stay in the entity or the
        # reject table; the law holds over what bronze holds, and such a row still wins its key)
        in_entity = Counter((r[0] if merged else e.source, r[-3], r[-5], r[-4]) for r in kept)
        unresolved = Counter((r["source_relation"], r["_source_row_id"], r["_load_id"], r["_ingested_at"])
                             for r in rejects.values() if not r["resolved"])
        trimmed = {identity for identity in in_entity + unresolved if identity not in held}
        stats = STATS[project.engine]
        stats["trimmed deliveries still in the entity or the reject table"] += len(trimmed)
        in_entity = Counter({i: n for i, n in in_entity.items() if i in held})
        unresolved = Counter({i: n for i, n in unresolved.items() if i in held})
        losers = (wh.version_losers(e, trimmed, in_entity + unresolved) if e.scd2
                  else wh.dedupe_losers(e, trimmed, set(in_entity + unresolved)))
        placed = in_entity + unresolved + losers
        lost_rows += sum((bronze - placed).values())
        assert placed == bronze, (f"{where}: {e.name}: bronze {sum(bronze.values())} != entity {len(kept)} + rejects "
                                  f"{sum(unresolved.values())} + deduped {sum(losers.values())}\n  {diff(placed, bronze)}")
        places = Counter()
        left = {"entity": Counter(in_entity), "reject": Counter(unresolved)}
        for identity in bronze.elements():
            place = next((p for p in ("entity", "reject") if left[p][identity] > 0), "deduped")
            if place != "deduped":
                left[place][identity] -= 1
            places[(*identity, place)] += 1
        assert places == wh.places(e), f"{where}: {e.name} places\n  {diff(places, wh.places(e))}"
    return lost_rows


def run(project, scenario):
    """Play a scenario on an empty warehouse, checking after every step."""
    note(f"as a regression: {json.dumps(scenario)}")
    project.reset()
    mix, tree, steps = scenario.get("mix", "incremental"), scenario.get("tree", "base"), scenario["steps"]
    wh, first_seen, previous = pm.Warehouse(mix, tree), {}, "base"
    stats = STATS[project.engine]
    for n, step in enumerate(steps):
        wh.variant = step["variant"]
        project.variant = manifest(step["variant"], mix, tree)
        where = f"step {n + 1} ({step['do']}, {step['variant']}, {mix})"
        if step["do"] == "load":
            for table in pm.tables(tree):
                rows = [tuple(r) for r in step.get(table, [])]
                project.write_bronze(table, pm.COLUMNS[table], rows, append=n > 0)
                wh.bronze[table] += [pm.Delivery(table, r[:-3], *r[-3:]) for r in rows]
            project.dbt("build", *BUILD)
            wh.build()
            stats["builds"] += 1
            stats.update(f"parts: {what}" for what in step.get("parts", []))
        elif step["do"] == "delete":
            for table in pm.tables(tree):
                project.execute(f'delete from main."{table}" where _load_id = \'{step["load"]}\'')
            wh.delete_load(step["load"])
            project.dbt("build", *BUILD)
            wh.build()
            stats["builds"] += 1
            stats["loads deleted from bronze"] += 1
        elif step["do"] == "refresh":
            project.dbt("build", "--full-refresh", *BUILD)
            wh.build(full_refresh=True)
            stats["builds"] += 1
            stats["full refreshes"] += 1
        else:
            for name in step["entities"]:      # parent first, as plan() orders replay_scope
                project.dbt("run-operation", "bloomery.replay", "--args", json.dumps({"entity": name}))
                due = wh.replay(name)
                if getattr(wh, name).scd2:
                    land_replayed(project, wh, getattr(wh, name), due, where)
                    stats["type 2 rows re-delivered by replay"] += len(due)
                stats["replays"] += 1
            stats["replays after a spec change"] += step["variant"] != previous
        stats["rows lost"] += check(project, wh, first_seen, where)
        stats["checks"] += 1
        previous = step["variant"]
    stats["examples"] += 1
    stats[f"mix: {mix}"] += 1
    stats[f"tree: {tree}"] += 1
    stats["bronze rows"] += sum(len(v) for v in wh.bronze.values())
    for e in wh.entities:
        stats.update(f"ended {place}" for (*_, place) in wh.places(e).elements())
        stats.update({f"verdicts {route}": n for route, n in e.routes.items()})


def land_replayed(project, wh, e, due: list[str], where: str):
    """A type 2 replay wrote rows back to bronze (`_load_id` pm.REPLAY, the replay's time): they
    must be exactly the source rows the model says, and the model takes their timestamps."""
    known = {d.identity() for d in wh.bronze[e.source]}
    new = [r for r in project.query(f'select _source_row_id, _load_id, _ingested_at from main."{e.source}" '
                                    f"where _load_id = '{pm.REPLAY}'") if (e.source, *r) not in known]
    assert sorted(sid for sid, _, _ in new) == due, f"{where}: {e.name} replay re-delivered {new}, the model says {due}"
    wh.land_replayed(e, {sid: ts for sid, _, ts in new})


def regressions(test):
    """Every example that once failed, replayed before the generated ones. A case whose bug is not
    fixed yet carries "open" (what is wrong): it must still fail, and once it passes the test says
    so, and "open" goes."""
    for case in json.loads(REGRESSIONS.read_text()) if REGRESSIONS.exists() else []:
        kept = example(scenario={"mix": case.get("mix", "incremental"), "tree": case.get("tree", "base"), "steps": case["steps"]})
        if case.get("open"):
            kept = kept.xfail(reason=case["open"], raises=AssertionError)
        test = kept(test)
    return test


def test_every_row_is_accounted_for(project, request):
    """The property, on each engine with its own number of examples, split in shares between
    modules (SHARE): the kept regressions first."""
    share, shares = getattr(request.module, "SHARE", (0, 1))
    total = EXAMPLES[project.engine]
    examples = total // shares + (share < total % shares)
    # 0 examples: the kept regressions alone (hypothesis wants max_examples >= 1, so no generate phase)
    generate = [Phase.generate] + ([Phase.shrink] if os.environ.get("BLOOMERY_PROPERTY_SHRINK", "1") == "1" else [])
    explicit = [Phase.explicit] if share == 0 else []
    if not explicit and not examples:
        return      # a share with nothing to draw (BLOOMERY_PROPERTY_EXAMPLES below the shares)

    @settings(max_examples=max(1, examples), deadline=None, derandomize=share == 0, database=None, print_blob=True,
              phases=explicit + (generate if examples else []),
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
    @regressions
    @given(scenario=scenarios())
    def every_row_is_accounted_for(scenario):
        run(project, scenario)

    if share:
        every_row_is_accounted_for = seed(share)(every_row_is_accounted_for)
    started = time.monotonic()
    every_row_is_accounted_for()
    STATS[project.engine]["seconds"] += round(time.monotonic() - started)
    assert STATS[project.engine]["rows lost"] == 0


def test_report(project):
    """The figures docs/reliability.md quotes (printed with -s)."""
    print(f"\nconservation property on {project.engine}: {dict(sorted(STATS[project.engine].items()))}")


# -- idempotence: the same load twice, full refresh against incremental, replay twice ------------
def acc(key, tier="basic", score="5", opened="2020-01-01", load="L1a", ts="2024-03-01 01:00:00", sid=None):
    return (key, tier, score, opened, load, ts, sid)


def ent(entry, line, account="A1", payer="A1", code="AB1", amount="1.00", load="L1a", ts="2024-03-01 02:00:00", sid=None):
    return (payload({"entry": entry, "line": line, "account": account, "code": code, "amount": amount}), payer, load, ts, sid)


KITCHEN = {  # every route in two loads: parents arrive before (or with) their children
    "L1": {pm.ACCOUNTS: [acc("A1", sid="a1"), acc("A2", tier="legacy", sid="a2"), acc("A3", score="150", sid="a3"),
                         acc("A1", tier="pro", ts="2024-03-01 00:00:00", sid="a4"), acc("", sid="a5"), acc(None, sid="a6"),
                         acc("A4", opened="", sid="a7"), acc("A5", opened=None, sid="a8")],
           pm.ENTRIES: [ent("E1", "1", sid="e1"), ent("E1", "2", account="Z9", sid="e2"), ent("E2", "1", payer="Z9", sid="e3"),
                        ent("E2", "x", sid="e4"), ent("E3", "1", code="abc", sid="e5"), ent("E3", "2", amount="12000.00", sid="e6"),
                        ent("E4", "1", payer="A2", sid="e7"), ent("E4", "2", amount="12,50", sid="e8"), ent("E5", "1", payer=None, sid="e9")]},
    "L2": {pm.ACCOUNTS: [acc("A3", score="50", load="L2a", ts="2024-03-01 03:00:00", sid="a3"),
                         acc("A6", load="L2a", ts="2024-03-01 03:00:00", sid="a9")],
           pm.ENTRIES: [ent("E1", "1", amount="2.00", load="L2a", ts="2024-03-01 04:00:00", sid="e1"),
                        ent("E6", "1", payer="A6", load="L2a", ts="2024-03-01 04:00:00", sid="e10"),
                        ent("E2", "x", load="L2a", ts="2024-03-01 00:30:00", sid="e4"),
                        ent("E7", "1", code="zz9", load="L2a", ts="2024-03-01 01:00:00", sid="e11")]},
}


def all_but(project, table: str, exclude: set[str]) -> str:
    """The select list of every column of a table but some, in table order (DuckDB's
    `* exclude (...)`, which PostgreSQL has no spelling of)."""
    names = [n for (n,) in project.query(
        "select column_name from information_schema.columns where table_catalog = current_database() "
        f"and table_schema = 'main' and table_name = '{table}' order by ordinal_position")]
    assert exclude <= set(names), (table, exclude - set(names))
    return ", ".join(f'"{n}"' for n in names if n not in exclude)


def tables(project) -> dict:
    return {t: Counter(map(repr, project.query(f'select * from main."{t}"')))
            for t in ("account", "account__reject", "entry", "entry__reject")}


def play(project, *loads, refresh=False):
    for n, load in enumerate(loads):
        for table in (pm.ACCOUNTS, pm.ENTRIES):
            project.write_bronze(table, pm.COLUMNS[table], KITCHEN[load][table], append=n > 0)
        project.dbt("build", *BUILD)
    if refresh:
        project.dbt("build", "--full-refresh", *BUILD)


def test_the_same_load_twice_changes_nothing(project):
    project.reset()
    project.variant = manifest("base")
    play(project, "L1", "L2")
    before = tables(project)
    project.dbt("build", *BUILD)                       # a rerun with nothing new
    assert tables(project) == before
    for table in (pm.ACCOUNTS, pm.ENTRIES):            # the loader delivers load L2 a second time, verbatim
        project.write_bronze(table, pm.COLUMNS[table], KITCHEN["L2"][table], append=True)
    project.dbt("build", *BUILD)
    assert tables(project) == before


def test_full_refresh_equals_incremental(project):
    def unresolved(exclude=frozenset({"resolved_at", "last_evaluated_at"})):
        return {t: Counter(map(repr, project.query(
            f'select {all_but(project, t, exclude)} from main."{t}" where resolved_at is null' if "__reject" in t
            else f'select * from main."{t}"'))) for t in ("account", "account__reject", "entry", "entry__reject")}
    # first_seen is the earliest _ingested_at among the deliveries a build has seen of the row:
    # e4's re-delivery in L2 carries an older one than its L1 delivery, so a build that sees both
    # at once starts from it, while the incremental one had already written the L1 time
    without_first_seen = frozenset({"resolved_at", "last_evaluated_at", "first_seen"})
    project.reset()
    project.variant = manifest("base")
    play(project, "L1", "L2")
    incremental, placed = unresolved(), unresolved(without_first_seen)
    project.dbt("build", "--full-refresh", *BUILD)     # the reject table is never rebuilt: first_seen stays
    assert unresolved() == incremental
    project.reset()
    for table in (pm.ACCOUNTS, pm.ENTRIES):
        project.write_bronze(table, pm.COLUMNS[table], KITCHEN["L1"][table] + KITCHEN["L2"][table])
    project.dbt("build", *BUILD)
    assert unresolved(without_first_seen) == placed
    assert project.query("select first_seen from main.entry__reject where _source_row_id = 'e4'") == [
        (dt.datetime(2024, 3, 1, 0, 30),)]


def test_replay_twice_is_replay_once(project):
    project.reset()
    project.variant = manifest("base")
    play(project, "L1", "L2")
    project.variant = manifest("wide")               # the enum gains `legacy`, code_pattern becomes a flag
    for entity in ("account", "entry"):
        project.dbt("run-operation", "bloomery.replay", "--args", json.dumps({"entity": entity}))
    once = tables(project)
    assert project.query("select count(*) from main.account where _source_row_id = 'a2'") == [(1,)]
    for entity in ("account", "entry"):
        project.dbt("run-operation", "bloomery.replay", "--args", json.dumps({"entity": entity}))
    assert tables(project) == once
