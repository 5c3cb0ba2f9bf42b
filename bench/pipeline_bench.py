"""What one pass for every rule costs, against the floor and against dbt's one query per test.

Generates N bronze rows on DuckDB with a realistic dirty mix (about 5% failed casts, 3%
duplicate deliveries, 1% orphans, every disposition present) for one entity with 20 rules of
mixed kinds, then times whole `dbt build` processes, alternating the variants in one run:

  fixed   a one-model `select 1` project: dbt's own start-up, the same for every variant
  a       bloomery: staged, entity, reject, mart and the blocking audits
  b       the floor: the same extract, casts and dedupe, no rules
  c       dbt-native: the floor model plus the same 20 rules as one dbt test each, store_failures on

and reports medians, the ratios a/b and a/c net of the fixed cost, peak memory (largest single
process), the incremental run with 1% new rows against the full build (medians of as many
pairs as rounds), and replay time for a fixed number of rejects.

    .venv/bin/python bench/pipeline_bench.py                 # 1M rows, 3 rounds
    .venv/bin/python bench/pipeline_bench.py --rows 10000000 --rounds 2
    .venv/bin/python bench/pipeline_bench.py --replay-only --rows 1000000,10000000
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import duckdb

ROOT = Path(__file__).resolve().parents[1]
VENV_BIN = Path(sys.executable).parent
WORK = Path(os.environ.get("BLOOMERY_BENCH_DIR", "/tmp/bloomery-bench"))

ENTITY_MODEL = """\
spec_version: 1
entities:
  account:
    grain: one row per account
    key: [account_id]
    fields:
      account_id: {type: string}
  event:
    grain: one row per event
    materialization: incremental_by_key   # the incremental scenario: 1% new rows judged, not all of bronze
    key: [event_id]
    fields:
      event_id: {type: string}
      account_id: {type: string}
      kind: {type: string}
      amount: {type: "decimal(14,2)"}
      qty: {type: int}
      email: {type: string}
      country: {type: string}
      happened: {type: timestamp}
      note: {type: string}
    dedupe: {keep: latest_by, field: _ingested_at, tie_break: [_load_id]}
    quarantine: {retention: 52w}
    quality:
      - {rule: expression, name: amount_within_qty, expr: "amount <= qty * 1000", on_fail: flag}
      - {rule: referential, via: event_account, on_missing: unknown_member}
relationships:
  - {name: event_account, from: event, to: account, via: {account_id: account_id}, cardinality: many_to_one}
"""

MAPPING_EVENTS = """\
mapping_version: 1
source: bench__events
target: event
key:
  event_id: {from: "$.id"}
fields:
  account_id:
    from: "$.account"
    quality:
      - {rule: not_null, on_fail: quarantine}
  kind:
    from: "$.kind"
    transform: [lower, {enum_map: [buy, buy, sell, sell, refund, refund]}]
    quality:
      - {rule: in_enum, on_fail: quarantine}
      - {rule: not_null, on_fail: flag}
  amount:
    from: "$.amount"
    transform: [{to_decimal: [14, 2]}]
    quality:
      - {rule: range, min: 0, on_fail: quarantine}
      - {rule: range, max: 1000000, on_fail: flag}
      - {rule: not_null, on_fail: flag}
  qty:
    from: "$.qty"
    transform: [to_int]
    quality:
      - {rule: range, min: 1, on_fail: quarantine}
      - {rule: range, max: 100, on_fail: flag}
  email:
    from: "$.email"
    transform: [trim, lower]
    quality:
      - {rule: pattern, regex: '^[^@ ]+@[^@ ]+\\.[a-z]{2,}$', on_fail: flag}
      - {rule: length, max: 254, on_fail: flag}
  country:
    from: "$.country"
    transform: [upper]
    quality:
      - {rule: length, min: 2, max: 2, on_fail: quarantine}
      - {rule: in_set, values: [DE, FR, NL, BE, IT, ES], on_fail: flag}
  happened:
    from: "$.happened"
    transform: [{parse_ts: ISO8601}]
    quality:
      - {rule: not_null, on_fail: quarantine}
      - {rule: range, min: "2015-01-01T00:00:00", on_fail: flag}
  note:
    from: "$.note"
    quality:
      - {rule: in_set, values: [ok], on_fail: flag}
unmapped: ["$._load_id", "$._ingested_at", "$._source_row_id"]
"""

MAPPING_ACCOUNTS = """\
mapping_version: 1
source: bench__accounts
target: account
key:
  account_id: {from: "$.id"}
"""

# The same extract, casts and dedupe, written the way a dbt user would without bloomery.
FLOOR_MODEL = """\
{{ config(materialized='table') }}
select
  id as event_id, account as account_id,
  case lower(kind) when 'buy' then 'buy' when 'sell' then 'sell' when 'refund' then 'refund' else lower(kind) end as kind,
  try_cast(amount as decimal(14,2)) as amount, try_cast(qty as bigint) as qty,
  lower(trim(email)) as email, upper(country) as country, try_cast(happened as timestamp) as happened, note,
  _load_id, _ingested_at, _source_row_id
from {{ source('bronze', 'bench__events') }}
qualify row_number() over (partition by id order by _ingested_at desc nulls last, _load_id desc nulls last,
                           _source_row_id desc nulls last) = 1
"""

# The same 20 rules as dbt tests: 3 coercibles (the fields with a cast), 15 field rules, the expression
# and the referential.
NATIVE_TESTS = {
    "coercible_amount": "select * from {{ source('bronze', 'bench__events') }} where amount is not null and try_cast(amount as decimal(14,2)) is null",
    "coercible_qty": "select * from {{ source('bronze', 'bench__events') }} where qty is not null and try_cast(qty as bigint) is null",
    "coercible_happened": "select * from {{ source('bronze', 'bench__events') }} where happened is not null and try_cast(happened as timestamp) is null",
    "account_id_not_null": "select * from {{ ref('floor_event') }} where account_id is null",
    "kind_not_null": "select * from {{ ref('floor_event') }} where kind is null",
    "amount_not_null": "select * from {{ ref('floor_event') }} where amount is null",
    "qty_range_max": "select * from {{ ref('floor_event') }} where qty > 100",
    "email_length": "select * from {{ ref('floor_event') }} where length(email) > 254",
    "note_in_set": "select * from {{ ref('floor_event') }} where note not in ('ok')",
    "kind_in_enum": "select * from {{ ref('floor_event') }} where kind not in ('buy', 'sell', 'refund')",
    "amount_range_min": "select * from {{ ref('floor_event') }} where amount < 0",
    "amount_range_max": "select * from {{ ref('floor_event') }} where amount > 1000000",
    "qty_range_min": "select * from {{ ref('floor_event') }} where qty < 1",
    "email_pattern": "select * from {{ ref('floor_event') }} where not regexp_matches(email, '^[^@ ]+@[^@ ]+\\.[a-z]{2,}$')",
    "country_length": "select * from {{ ref('floor_event') }} where length(country) < 2 or length(country) > 2",
    "country_in_set": "select * from {{ ref('floor_event') }} where country not in ('DE', 'FR', 'NL', 'BE', 'IT', 'ES')",
    "happened_not_null": "select * from {{ ref('floor_event') }} where happened is null",
    "happened_range_min": "select * from {{ ref('floor_event') }} where happened < timestamp '2015-01-01'",
    "amount_within_qty": "select * from {{ ref('floor_event') }} where not (amount <= qty * 1000)",
    "event_account": "select e.* from {{ ref('floor_event') }} e left join {{ source('bronze', 'bench__accounts') }} a on a.id = e.account_id where a.id is null and e.account_id is not null",
}


def generate(db: Path, rows: int, accounts: int = 10_000, offset: int = 0, load: str = "l0001"):
    """Bronze rows as text, deterministic in `i`: every dirty kind at its share."""
    with duckdb.connect(str(db)) as con:
        con.execute("create table if not exists bench__accounts as "
                    f"select 'A' || i as id from range({accounts}) t(i)")
        con.execute(f"""
        create {'table' if offset == 0 else 'temp table'} {'bench__events' if offset == 0 else 'new_rows'} as
        with base as (select i, cast(hash(i) % 1000003 as bigint) as h from range({offset}, {offset + rows}) t(i))
        select
          'E' || case when h % 100 < 3 then i - 1 else i end as id,                       -- 3% re-deliver a key
          case when h % 100 = 7 then 'ORPHAN' || i else 'A' || (h % {accounts}) end as account,   -- 1% orphans
          case h % 50 when 0 then 'Gift' else ['buy', 'SELL', 'refund'][1 + (h % 3)] end as kind,
          case when h % 100 between 10 and 12 then '12,50 €' when h % 100 = 13 then '-5' else cast((h % 100000) / 100.0 as varchar) end as amount,
          case when h % 100 between 14 and 15 then 'two' when h % 100 = 16 then '0' else cast(1 + h % 9 as varchar) end as qty,
          case when h % 40 = 0 then 'not-an-email' else 'user' || (h % 1000) || '@example.com' end as email,
          case when h % 60 = 0 then 'DEU' else ['de', 'fr', 'nl', 'be', 'it', 'es', 'us'][1 + (h % 7)] end as country,
          case when h % 200 = 0 then null when h % 100 = 17 then '2024-02-30T00:00:00' else '2024-01-01T00:00:00' end as happened,
          case when h % 500 = 0 then 'bad' || chr(7) else 'ok' end as note,
          '{load}' as _load_id,
          cast(timestamp '2024-01-01' + to_seconds(i) as varchar) as _ingested_at,
          'r' || i as _source_row_id
        from base""")
        if offset:
            con.execute("insert into bench__events select * from new_rows")


def _project(name: str, specs: bool = False, floor: bool = False, native: bool = False) -> Path:
    project = WORK / name
    shutil.rmtree(project, ignore_errors=True)
    (project / "models").mkdir(parents=True)
    (project / "dbt_project.yml").write_text(
        f"name: bench_{name}\nversion: '1.0.0'\nconfig-version: 2\nprofile: bench\n"
        "vars: {bloomery_now: '2024-06-01 00:00:00'}\n")
    (project / "profiles.yml").write_text(
        "bench:\n  target: d\n  outputs:\n    d: {type: duckdb, path: \"{{ env_var('BENCH_DB') }}\", threads: 2}\n")
    if specs:
        (project / "packages.yml").write_text(f"packages:\n  - local: {ROOT}\n")
        (project / "specs").mkdir()
        (project / "specs" / "entity_model.yaml").write_text(ENTITY_MODEL)
        (project / "specs" / "mapping_events.yaml").write_text(MAPPING_EVENTS)
        (project / "specs" / "mapping_accounts.yaml").write_text(MAPPING_ACCOUNTS)
        subprocess.run([VENV_BIN / "bloomery", "compile", "--specs", project / "specs", "--out", project / "models" / "bloomery"],
                       check=True, stdout=subprocess.DEVNULL)
        subprocess.run([VENV_BIN / "dbt", "deps", "--project-dir", project, "--profiles-dir", project],
                       check=True, stdout=subprocess.DEVNULL)
    if floor or native:
        (project / "models" / "sources.yml").write_text(
            "version: 2\nsources:\n  - name: bronze\n    schema: main\n    tables: [{name: bench__events}, {name: bench__accounts}]\n")
        (project / "models" / "floor_event.sql").write_text(FLOOR_MODEL)
    if native:
        (project / "tests").mkdir()
        for test, sql in NATIVE_TESTS.items():
            (project / "tests" / f"{test}.sql").write_text("{{ config(store_failures=true, severity='warn') }}\n" + sql + "\n")
    if not (specs or floor or native):
        (project / "models" / "one.sql").write_text("select 1 as x\n")
    return project


def _timed(cmd: list, env: dict) -> tuple[float, int]:
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.stderr.close()
    if os.waitstatus_to_exitcode(status) not in (0, 1):   # 1: dbt finished with failing tests
        raise RuntimeError(f"{' '.join(map(str, cmd))} exited {status}")
    return wall, usage.ru_maxrss // 1024


def dbt_build(project: Path, db: Path, *extra: str) -> tuple[float, int]:
    env = dict(os.environ, BENCH_DB=str(db))
    return _timed([str(VENV_BIN / "dbt"), "build", "--project-dir", str(project), "--profiles-dir", str(project),
                   "--target-path", str(project / "target"), "--quiet", *extra], env)


def fresh_copy(template: Path, name: str) -> Path:
    db = WORK / f"{name}.duckdb"
    db.unlink(missing_ok=True)
    shutil.copy(template, db)
    return db


def alternate(projects: dict, rounds: int, build) -> tuple[dict, dict, dict]:
    """Every variant once per round, in turn (a drifting machine hits all alike), each by
    `build(key, project) -> (wall, rss)`: the medians, the peak RSS and the medians net of `fixed`."""
    times: dict = {k: [] for k in projects}
    memory: dict = {k: 0 for k in projects}
    for _ in range(rounds):
        for key, project in projects.items():
            wall, rss = build(key, project)
            times[key].append(wall)
            memory[key] = max(memory[key], rss)
    med = {k: statistics.median(v) for k, v in times.items()}
    return med, memory, {k: max(med[k] - med["fixed"], 1e-9) for k in projects if k != "fixed"}


def run(rows: int, rounds: int) -> dict:
    WORK.mkdir(parents=True, exist_ok=True)
    template = WORK / f"bronze_{rows}.duckdb"
    if not template.exists():
        generate(template, rows)
    projects = {"fixed": _project("fixed"), "a": _project("bloomery", specs=True),
                "b": _project("floor", floor=True), "c": _project("native", floor=True, native=True)}
    med, memory, net = alternate(projects, rounds, lambda key, project: dbt_build(project, fresh_copy(template, key)))

    incremental = incremental_cost(template, rows, projects["a"], rounds)
    return {
        "rows": rows, "rounds": rounds,
        "median_seconds": med, "peak_rss_mb": memory,
        "ratio_a_over_b_net": net["a"] / net["b"], "ratio_a_over_c_net": net["a"] / net["c"],
        "ratio_a_over_b_whole": med["a"] / med["b"], "ratio_a_over_c_whole": med["a"] / med["c"],
        **incremental,
        "incremental_over_full_net": max(incremental["incremental_seconds"] - med["fixed"], 1e-9)
                                     / max(incremental["full_seconds"] - med["fixed"], 1e-9),
    }


def incremental_cost(template: Path, rows: int, project: Path, rounds: int) -> dict:
    """The full build, then 1% new rows on top of its history built incrementally, `rounds` times:
    the medians of both, and every pair. One pair is too few: where DuckDB's checkpoint falls
    within the small run moves it by about half a second."""
    pairs = []
    for _ in range(rounds):
        db = fresh_copy(template, "incremental")
        full, _ = dbt_build(project, db)
        generate(db, max(rows // 100, 1), offset=rows, load="l0002")
        incremental, _ = dbt_build(project, db)
        pairs.append([full, incremental])
    return {"full_seconds": statistics.median(p[0] for p in pairs),
            "incremental_seconds": statistics.median(p[1] for p in pairs),
            "incremental_pairs": pairs}


def incremental_only(rows: int, rounds: int) -> dict:
    """The incremental figure alone (the start-up `fixed`, the full build, the incremental run),
    when the other variants are not being compared."""
    WORK.mkdir(parents=True, exist_ok=True)
    template = WORK / f"bronze_{rows}.duckdb"
    if not template.exists():
        generate(template, rows)
    fixed = statistics.median(dbt_build(_project("fixed"), fresh_copy(template, "fixed"))[0] for _ in range(rounds))
    incremental = incremental_cost(template, rows, _project("bloomery", specs=True), rounds)
    return {"rows": rows, "fixed_seconds": fixed, **incremental,
            "incremental_over_full_net": max(incremental["incremental_seconds"] - fixed, 1e-9)
                                         / max(incremental["full_seconds"] - fixed, 1e-9)}


def replay_cost(rows: int, rejects_target: int = 10_000) -> dict:
    """Time to replay the rejects of one rule after it is widened, as bronze grows."""
    WORK.mkdir(parents=True, exist_ok=True)
    template = WORK / f"bronze_{rows}.duckdb"
    if not template.exists():
        generate(template, rows)
    project = _project("replay", specs=True)
    db = fresh_copy(template, "replay")
    # a fixed number of rejects whatever the size: every other cell clean, and an unmapped 'Gift'
    # kind on about rejects_target rows, all among the first rejects_target * 50
    with duckdb.connect(str(db)) as con:
        con.execute("update bench__events set account = 'A1', amount = '1.00', qty = '1', email = 'user@example.com', "
                    "country = 'de', happened = '2024-01-01T00:00:00', note = 'ok', "
                    f"kind = case when cast(substr(_source_row_id, 2) as bigint) < {rejects_target * 50} "
                    "and hash(cast(substr(_source_row_id, 2) as bigint)) % 50 = 0 then 'Gift' else 'buy' end")
    dbt_build(project, db)
    mapping = project / "specs" / "mapping_events.yaml"
    mapping.write_text(mapping.read_text().replace("refund, refund]", "refund, refund, gift, buy]"))
    subprocess.run([VENV_BIN / "bloomery", "compile", "--specs", project / "specs", "--out", project / "models" / "bloomery"],
                   check=True, stdout=subprocess.DEVNULL)
    env = dict(os.environ, BENCH_DB=str(db))
    wall, rss = _timed([str(VENV_BIN / "dbt"), "run-operation", "bloomery.replay", "--args", "{entity: event}",
                        "--project-dir", str(project), "--profiles-dir", str(project)], env)
    with duckdb.connect(str(db)) as con:
        resolved, open_ = con.execute("select count(*) filter (where resolved_at is not null), "
                                      "count(*) filter (where resolved_at is null) from event__reject").fetchone()
    return {"rows": rows, "replay_seconds": wall, "resolved": resolved, "still_open": open_, "peak_rss_mb": rss}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", default="1000000", help="bronze rows; a comma list for replay")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--replay-only", action="store_true")
    parser.add_argument("--incremental-only", action="store_true",
                        help="only the incremental run against the full build (and the start-up)")
    args = parser.parse_args()
    sizes = [int(x) for x in args.rows.split(",")]
    out = {}
    if args.incremental_only:
        out["incremental"] = [incremental_only(n, args.rounds) for n in sizes]
        print(json.dumps(out, indent=2))
        return 0
    if not args.replay_only:
        out["pipeline"] = [run(n, args.rounds) for n in sizes]
    out["replay"] = [replay_cost(n) for n in sizes]
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
