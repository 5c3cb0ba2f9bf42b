"""The conservation law as a property, on DuckDB and on PostgreSQL.

Hypothesis generates scenarios for the property spec tree (integration_tests/corpus/property/specs:
an `account` parent and an `entry` child with a composite key, dedupe with a tie-break, an
`unknown_member` and a `quarantine` referential, quarantine and flag rules, no `fail` rule):
several loads in sequence mixing clean rows, failed casts, NULLs and empty strings, duplicates with
recency ties, re-deliveries of a `_source_row_id` in later loads (some of them late), orphans and
every rule's violations; between loads, replays (after a spec widening, a narrowing back, or
plain) and full refreshes. After every step:

  - bronze rows = entity rows (without the Unknown member) + unresolved rejects + deduped, with
    deduped computed in Python from the bronze rows and the dedupe order alone;
  - every bronze row is where the pure-Python model (property_model.py) says: entity, reject or
    deduped, with the exact values, flags, failed rules, key_values and raw payload;
  - no reject_id twice; first_seen never moves for a reject_id.
The blocking conservation audits run in every build too, so a false alarm fails the example as
surely as a lost row.

Examples are derandomized (the same ones on every run). A failing example is kept in
property_regressions.json and replayed first, on both engines, forever. BLOOMERY_PROPERTY_EXAMPLES
overrides the number of generated examples on DuckDB (200 by default), BLOOMERY_PROPERTY_EXAMPLES_PG
on PostgreSQL (50 by default). Each engine's tests carry its mark: `-m duckdb` runs DuckDB's alone.
"""
from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import time
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from . import property_model as pm
from .harness import INTEGRATION
from .reused_project import ReusedDuckProject, ReusedPgProject

SPECS = INTEGRATION / "corpus" / "property" / "specs"
REGRESSIONS = Path(__file__).with_name("property_regressions.json")
EXAMPLES = {"duckdb": int(os.environ.get("BLOOMERY_PROPERTY_EXAMPLES", "200")),
            "postgres": int(os.environ.get("BLOOMERY_PROPERTY_EXAMPLES_PG", "50"))}
STATS = {engine: Counter() for engine in EXAMPLES}
# Every model of both entities and their conservation audits. The quality mart has tests of its
# own, and the ingestion-metadata audits guard metadata this generator always writes well-formed.
BUILD = ["--exclude", "mart_data_quality", "quality_quarantine_rate", "account_ingestion_metadata", "entry_ingestion_metadata"]


def widened(tmp: Path) -> Path:
    out = tmp / "wide_specs"
    shutil.copytree(SPECS, out)
    for name, (old, new) in pm.WIDEN.items():
        text = (out / name).read_text()
        assert old in text, name
        (out / name).write_text(text.replace(old, new))
    return out


@pytest.fixture(scope="module", params=[pytest.param("duckdb", marks=pytest.mark.duckdb),
                                        pytest.param("postgres", marks=pytest.mark.postgres)])
def project(request, tmp_path_factory):
    """The reused project on each engine in turn: every test below runs on both."""
    tmp = tmp_path_factory.mktemp(f"property_{request.param}")
    variants = {"base": SPECS, "wide": widened(tmp)}
    if request.param == "duckdb":
        project = ReusedDuckProject(tmp, variants)
    else:
        project = ReusedPgProject(tmp, request.getfixturevalue("pg_server"), variants)
    yield project
    project.close()


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
# as diverted ones
clean_account = {"id": pick("A1", "A2", "A3"), "tier": pick("basic", "pro", "gold", "premium"),
                 "score": st.integers(0, 100).map(str), "opened": iso_dates}
clean_entry = {"entry": pick("E1", "E2"), "line": pick("1", "2", "3"), "account": pick("A1", "A2", "A3"),
               "payer": pick("A1", "A2", "A3"), "code": pick("AB1", "cd2"), "amount": st.integers(0, 500_000).map(
                   lambda c: f"{c // 100}.{c % 100:02d}")}


def payload(doc: dict) -> str:
    return json.dumps({k: v for k, v in doc.items() if v != MISSING})


@st.composite
def scenarios(draw):
    """A list of steps. A load step lands one to three loads (each its own _load_id) in bronze and
    then builds; its rows are bronze text. A re-delivery copies the key cells of an earlier
    delivery (a source row keeps its key) and may arrive late (an older _ingested_at)."""
    steps, delivered = [], {pm.ACCOUNTS: [], pm.ENTRIES: []}
    sids = Counter()
    for i in range(draw(pick(1, 2, 2, 2, 3))):
        kind = "load" if i == 0 else draw(pick(*["load"] * 4, *["replay"] * 9, "refresh"))
        step = {"do": kind, "variant": draw(pick("base", "base", "wide")) if i else "base"}
        if kind == "replay":
            step["entities"] = draw(pick(["account"], ["entry"], ["account", "entry"]))
        if kind == "load":
            step[pm.ACCOUNTS], step[pm.ENTRIES] = [], []
            for part in range(draw(pick(1, 1, 2, 3))):
                load = f"L{i + 1}{'abc'[part]}"
                for table in (pm.ACCOUNTS, pm.ENTRIES):
                    rows, seen = [], set()
                    for _ in range(draw(st.integers(1 if i + part == 0 else 0, 6))):
                        ts = f"2024-03-01 {max(0, 3 * i + part + draw(st.integers(-4, 1))):02d}:00:00"
                        earlier = delivered[table]
                        again = bool(earlier) and draw(st.integers(0, 4)) == 0
                        original = draw(st.sampled_from(earlier)) if again else None
                        if again and original[-1] in seen:
                            continue                        # one delivery of a source row per load
                        if not again:
                            sids[table] += 1
                        sid = original[-1] if again else f"{table[6]}{sids[table]}"
                        seen.add(sid)
                        clean = draw(st.booleans())
                        if table == pm.ACCOUNTS:
                            c = clean_account if clean else {"id": account_id, "tier": tier, "score": score, "opened": opened}
                            key_cell = original[0] if again else draw(c["id"])
                            rows.append((key_cell, draw(c["tier"]), draw(c["score"]), draw(c["opened"]), load, ts, sid))
                        else:
                            c = clean_entry if clean else {"entry": entry_id, "line": line, "account": fk, "code": code,
                                                           "amount": amount, "payer": fk.filter(lambda v: v != MISSING)}
                            if again:
                                doc = json.loads(original[0])
                                key_doc = {"entry": doc.get("entry", MISSING), "line": doc.get("line", MISSING)}
                            else:
                                key_doc = {"entry": draw(c["entry"]), "line": draw(c["line"])}
                            doc = {**key_doc, "account": draw(c["account"]), "code": draw(c["code"]), "amount": draw(c["amount"])}
                            rows.append((payload(doc), draw(c["payer"]), load, ts, sid))
                    step[table] += rows
                    delivered[table] += rows
        steps.append(step)
    return steps


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
    return [tuple(r.values()) for r in read(project, f'select * from main."{e.name}"')]


def expected_rows(e) -> Counter:
    return Counter((*j.values, j.delivery.load, j.delivery.ts, j.delivery.sid, j.fired, not j.fired)
                   for j in e.kept.values())


def ts(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text)


def expected_rejects(e) -> dict:
    out = {}
    keys = ["account_id"] if e.name == "account" else ["entry_id", "line_no"]
    for sid, r in e.rejects.items():
        d = r.judged.delivery
        out[pm.reject_id(e.source, sid)] = {
            "source_relation": e.source, "mapping": f"{e.source}->{e.name}", "mapping_version": 1,
            "failed_rules": r.failed_rules, "key_values": dict(zip(keys, r.judged.key)), "raw": d.raw(),
            "_load_id": d.load, "_ingested_at": d.ts, "_source_row_id": sid,
            "first_seen": ts(r.first_seen), "last_seen": ts(d.ts),
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


def check(project, wh: pm.Warehouse, first_seen: dict, where: str):
    for e in wh.entities:
        bronze = project.query(f'select count(*) from main."{e.source}"')[0][0]
        assert bronze == len(wh.bronze[e.source])
        rows = entity_rows(project, e)
        members = [r for r in rows if r[-3] is None]
        kept = [r for r in rows if r[-3] is not None]
        if e is wh.account:
            assert members == [(pm.UNKNOWN, None, None, None, None, None, None, (), True)], f"{where}: Unknown member {members}"
        else:
            assert members == [], where
        assert Counter(kept) == expected_rows(e), f"{where}: {e.name} rows\n  {diff(Counter(kept), expected_rows(e))}"

        rejects = actual_rejects(project, e)
        want = expected_rejects(e)
        assert rejects.keys() == want.keys(), f"{where}: {e.name}__reject ids: {set(rejects) ^ set(want)}"
        for rid, r in rejects.items():
            assert r == want[rid], f"{where}: {e.name}__reject {r['_source_row_id']}: {r} != {want[rid]}"
            assert first_seen.setdefault((e.name, rid), r["first_seen"]) == r["first_seen"], f"{where}: first_seen moved"

        # the conservation law, with deduped counted from bronze and the dedupe order alone
        unresolved = {(r["_source_row_id"], r["_load_id"]) for r in rejects.values() if not r["resolved"]}
        in_entity = {(r[-3], r[-5]) for r in kept}
        losers = wh.dedupe_losers(e)
        assert bronze == len(kept) + len(unresolved) + len(losers), (
            f"{where}: {e.name}: bronze {bronze} != entity {len(kept)} + rejects {len(unresolved)} + deduped {len(losers)}")
        places = {(d.sid, d.load): "entity" if (d.sid, d.load) in in_entity else "reject" if (d.sid, d.load) in unresolved
                  else "deduped" for d in wh.bronze[e.source]}
        assert places == wh.places(e), f"{where}: {e.name} places"
        assert {k for k, v in places.items() if v == "deduped"} == losers, f"{where}: {e.name}: deduped rows"


def run(project, steps):
    """Play a scenario on an empty warehouse, checking after every step."""
    project.reset()
    wh, first_seen, previous = pm.Warehouse(), {}, "base"
    stats = STATS[project.engine]
    for n, step in enumerate(steps):
        wh.variant = project.variant = step["variant"]
        where = f"step {n + 1} ({step['do']}, {step['variant']})"
        if step["do"] == "load":
            for table in (pm.ACCOUNTS, pm.ENTRIES):
                rows = [tuple(r) for r in step[table]]
                project.write_bronze(table, pm.COLUMNS[table], rows, append=n > 0)
                wh.bronze[table] += [pm.Delivery(table, r[:-3], *r[-3:]) for r in rows]
            project.dbt("build", *BUILD)
            wh.build()
            stats["builds"] += 1
            stats["loads"] += len({r[-3] for table in (pm.ACCOUNTS, pm.ENTRIES) for r in step[table]})
        elif step["do"] == "refresh":
            project.dbt("build", "--full-refresh", *BUILD)
            wh.build(full_refresh=True)
            stats["builds"] += 1
            stats["full refreshes"] += 1
        else:
            for name in step["entities"]:      # parent first, as plan() orders replay_scope
                project.dbt("run-operation", "bloomery.replay", "--args", json.dumps({"entity": name}))
                wh.replay(name)
                stats["replays"] += 1
            stats["replays after a spec change"] += step["variant"] != previous
        check(project, wh, first_seen, where)
        stats["checks"] += 1
        previous = step["variant"]
    stats["examples"] += 1
    stats["bronze rows"] += sum(len(v) for v in wh.bronze.values())
    for e in wh.entities:
        stats.update(f"ended {place}" for place in wh.places(e).values())


def regressions(test):
    """Every example that once failed, replayed before the generated ones."""
    for case in json.loads(REGRESSIONS.read_text()) if REGRESSIONS.exists() else []:
        test = example(steps=case["steps"])(test)
    return test


def test_every_row_is_accounted_for(project):
    """The property, on each engine with its own number of examples: the kept regressions first."""
    @settings(max_examples=EXAMPLES[project.engine], deadline=None, derandomize=True, database=None, print_blob=True,
              phases=[Phase.explicit, Phase.generate] + ([Phase.shrink] if os.environ.get("BLOOMERY_PROPERTY_SHRINK", "1") == "1" else []),
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
    @regressions
    @given(steps=scenarios())
    def every_row_is_accounted_for(steps):
        run(project, steps)

    started = time.monotonic()
    every_row_is_accounted_for()
    STATS[project.engine]["seconds"] += round(time.monotonic() - started)


def test_report(project):
    """The figures docs/reliability.md quotes (printed with -s)."""
    print(f"\nconservation property on {project.engine}: {dict(STATS[project.engine])}")


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
    project.variant = "base"
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
    project.variant = "base"
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
    project.variant = "base"
    play(project, "L1", "L2")
    project.variant = "wide"                           # the enum gains `legacy`, code_pattern becomes a flag
    for entity in ("account", "entry"):
        project.dbt("run-operation", "bloomery.replay", "--args", json.dumps({"entity": entity}))
    once = tables(project)
    assert project.query("select count(*) from main.account where _source_row_id = 'a2'") == [(1,)]
    for entity in ("account", "entry"):
        project.dbt("run-operation", "bloomery.replay", "--args", json.dumps({"entity": entity}))
    assert tables(project) == once
