"""helper-20's attack on the incremental entity's delete of re-judged rows after loads are deleted
from bronze (stop 50, when a kept row's `keep` verdict leaving the ledger with it was decided to
be right, 440f57e). Checks after every build:
  - dbt build succeeds and `<entity>_conservation` passes
  - `<entity>__ledger` holds no identity twice
  - every delivery bronze holds now has exactly one ledger row
  - (dedupe) the entity holds no key twice
and, at the end, that a `--full-refresh` lands where one build over the final bronze lands.
"""
from __future__ import annotations

from collections import Counter

import pytest

from .harness import DuckProject, specs_folder
from .test_ledger_rest_attack import BRONZE, COLUMNS, DEDUPE, ENTITY, MAPPING, audit_rows, conservation
from .test_ledger_rest_attack import MODEL as REST_MODEL

pytestmark = pytest.mark.duckdb

# test_ledger_rest_attack's MODEL with a key that is not required (so a NULL key is a row)
MODEL = REST_MODEL.replace("acct_id: {{type: string, required: true}}", "acct_id: {{type: string}}")
assert MODEL != REST_MODEL
OTHER = "raw__accts2"


def project_of(tmp_path, kind="incremental_by_key", dedupe=True, merged=False):
    files = {"model.yaml": MODEL.format(entity=ENTITY, kind=kind, dedupe=DEDUPE if dedupe else ""),
             "mapping.yaml": MAPPING.format(entity=ENTITY, source=BRONZE)}
    if merged:
        files["mapping2.yaml"] = MAPPING.format(entity=ENTITY, source=OTHER)
    tmp_path.mkdir(parents=True, exist_ok=True)
    p = DuckProject(tmp_path, specs_folder(tmp_path, files))
    p.sources = [BRONZE] + ([OTHER] if merged else [])
    p.dedupe = dedupe
    return p


def ledger_dups(p):
    """identities the ledger records more often than bronze holds them (at least once)"""
    out = []
    for src in p.sources:
        out += p.query(f"""select l.*, coalesce(b.n, 0) from (
            select source_relation, _source_row_id, _load_id, _ingested_at, list(route order by route) as routes, count(*) as n
            from main."{ENTITY}__ledger" where source_relation = '{src}' group by all) as l
          left join (select _source_row_id, _load_id, _ingested_at, count(*) as n from main."{src}" group by all) as b
            using (_source_row_id, _load_id, _ingested_at)
          where b.n is not null and l.n > b.n order by all""")
    return out


def unaccounted(p):
    """bronze deliveries with no ledger row, or more than one"""
    out = []
    for src in p.sources:
        out += p.query(f"""
          select b.src, b._source_row_id, b._load_id, b._ingested_at, b.n, coalesce(l.n, 0)
          from (select '{src}' as src, _source_row_id, _load_id, _ingested_at, count(*) as n
                from main."{src}" group by all) as b
          left join (select source_relation, _source_row_id, _load_id, _ingested_at, count(*) as n
                     from main."{ENTITY}__ledger" group by all) as l
            on l.source_relation = b.src and l._source_row_id = b._source_row_id
           and l._load_id = b._load_id and l._ingested_at = b._ingested_at
          where coalesce(l.n, 0) <> b.n order by all""")
    return out


def entity_dups(p):
    return p.query(f'select acct_id, count(*) from main."{ENTITY}" where acct_id is not null group by all having count(*) > 1')


def build(p, *args):
    r = p.dbt("build", *args, check=False)
    failed = {k: v for k, v in r.statuses.items() if v not in ("success", "pass")}
    assert r.success and conservation(r) == "pass", (failed, conservation(r) == "fail" and audit_rows(p))
    assert ledger_dups(p) == [], ledger_dups(p)
    assert unaccounted(p) == [], unaccounted(p)
    if p.dedupe:
        assert entity_dups(p) == [], entity_dups(p)
    return r


def state(p):
    held = " or ".join(f"""exists (select 1 from main."{src}" as b where '{src}' = x.source_relation
                          and b._source_row_id = x._source_row_id and b._load_id = x._load_id)""" for src in p.sources)
    return {
        "entity": Counter(p.query(f'select acct_id, status, _source_row_id, _load_id from main."{ENTITY}"')),
        "rejects": Counter(p.query(f'select source_relation, _source_row_id, _load_id from main."{ENTITY}__reject" as x where resolved_at is null and ({held})')),
        "ledger": Counter(p.query(f'select source_relation, _source_row_id, _load_id, route from main."{ENTITY}__ledger" as x where {held}')),
    }


def write(p, table, rows, append=True):
    p.write_bronze(table, COLUMNS, rows, append=append)


def delete_load(p, table, load):
    p.execute(f"delete from main.\"{table}\" where _load_id = '{load}'")


T1, T2, T3, T4 = "2024-01-01 00:00:00", "2024-01-02 00:00:00", "2024-01-03 00:00:00", "2024-01-04 00:00:00"


def finish(p, tmp_path, kind, dedupe, merged):
    """retry, then a full refresh equals one build over the final bronze (for what bronze holds)"""
    before = state(p)
    build(p)                      # a retry with nothing new changes nothing
    assert state(p) == before
    build(p, "--full-refresh")
    once = project_of(tmp_path / "once", kind, dedupe, merged)
    for src in p.sources:
        once.write_bronze(src, COLUMNS, p.query(f'select {", ".join(COLUMNS)} from main."{src}"'))
    assert once.compile() == 0
    build(once)
    assert state(p) == state(once)


@pytest.mark.parametrize("dedupe", [True, False])
def test_load_deleted_then_key_and_row_redelivered(dedupe, tmp_path):
    kind = "incremental_by_key"
    p = project_of(tmp_path / "seq", kind, dedupe)
    write(p, BRONZE, [("A1", "open", "l1", T1, "a-1"), ("A2", "open", "l1", T1, "a-2"),
                      ("A3", "frozen", "l1", T1, "a-3")], append=False)   # a-3 quarantined
    assert p.compile() == 0
    build(p)
    write(p, BRONZE, [("A1", "closed", "l2", T2, "a-1b" if dedupe else "a-1"), ("A4", "open", "l2", T2, "a-4")])
    build(p)
    # l2 deleted from bronze; l3 re-delivers key A1 (new row) and source row a-4 (same id, other key)
    delete_load(p, BRONZE, "l2")
    write(p, BRONZE, [("A1", "open", "l3", T3, "a-1c" if dedupe else "a-1"), ("A5", "open", "l3", T3, "a-4"),
                      ("A3", "open", "l3", T3, "a-3")])                    # a-3 fixed at the source
    build(p)
    # l1 deleted too; l4 re-delivers A2 under an older timestamp (loses nothing: l1 is gone)
    delete_load(p, BRONZE, "l1")
    write(p, BRONZE, [("A2", "closed", "l4", T4, "a-2")])
    build(p)
    finish(p, tmp_path, kind, dedupe, False)


@pytest.mark.parametrize("dedupe", [True, False])
def test_null_keys(dedupe, tmp_path):
    kind = "incremental_by_key"
    p = project_of(tmp_path / "seq", kind, dedupe)
    # without dedupe two NULL-key rows are a duplicate key by design (key_unique.sql): one only
    n2 = None if dedupe else "B2"
    write(p, BRONZE, [(None, "open", "l1", T1, "n-1"), (n2, "open", "l1", T1, "n-2"),
                      ("A1", "open", "l1", T1, "a-1")], append=False)
    assert p.compile() == 0
    build(p)
    # n-1 and n-2 re-delivered still NULL, then l1 deleted
    write(p, BRONZE, [(None, "closed", "l2", T2, "n-1"), (n2, "closed", "l2", T2, "n-2")])
    build(p)
    delete_load(p, BRONZE, "l1")
    write(p, BRONZE, [(None, "open", "l3", T3, "n-1"), ("A1", "closed", "l3", T3, "n-3" if dedupe else "a-1")])
    build(p)
    finish(p, tmp_path, kind, dedupe, False)


@pytest.mark.parametrize("dedupe", [True, False])
def test_merged_load_deleted_then_redelivered(dedupe, tmp_path):
    kind = "incremental_by_key"
    p = project_of(tmp_path / "seq", kind, dedupe, merged=True)
    write(p, BRONZE, [("A1", "open", "l1", T1, "r-1"), ("A2", "open", "l1", T1, "r-2")], append=False)
    write(p, OTHER, [("B1", "open", "l1", T1, "r-1"), ("B2", "frozen", "l1", T1, "r-2")] +
          ([("A2", "closed", "l1", "2024-01-01 06:00:00", "r-3")] if dedupe else []), append=False)
    assert p.compile() == 0
    build(p)
    delete_load(p, OTHER, "l1")
    write(p, OTHER, [("B1", "closed", "l2", T2, "r-1")] + ([("A2", "open", "l2", T2, "r-9")] if dedupe else []))
    write(p, BRONZE, [("A1", "closed", "l2", T2, "r-1")])
    build(p)
    delete_load(p, BRONZE, "l1")
    write(p, BRONZE, [("A1" if dedupe else "A2", "open", "l3", T3, "r-2")])
    build(p)
    finish(p, tmp_path, kind, dedupe, True)


def test_same_delivery_twice_in_bronze(tmp_path):
    kind = "incremental_by_key"
    p = project_of(tmp_path / "seq", kind, True)
    rows = [("A1", "open", "l1", T1, "a-1"), ("A2", "frozen", "l1", T1, "a-2")]
    write(p, BRONZE, rows + rows, append=False)
    assert p.compile() == 0
    r = p.dbt("build", check=False)
    assert r.success and conservation(r) == "pass", audit_rows(p)
    assert entity_dups(p) == []
    # then delete the copies' load and re-deliver the key
    delete_load(p, BRONZE, "l1")
    write(p, BRONZE, [("A1", "closed", "l2", T2, "a-1")])
    r = p.dbt("build", check=False)
    assert r.success and conservation(r) == "pass", audit_rows(p)
    assert ledger_dups(p) == []
    assert unaccounted(p) == []


def test_an_older_delivery_after_the_newer_ones_load_was_deleted(tmp_path):
    """docs/quality-rules.md ("Bronze is a window"): a later build that judges the key again decides
    it among the deliveries bronze holds, as a full refresh would: a late, older delivery replaces
    the kept row whose load bronze lost, and that row's `keep` verdict leaves the ledger with it."""
    p = project_of(tmp_path / "seq", "incremental_by_key", True)
    write(p, BRONZE, [("A1", "closed", "l1", T3, "a-1")], append=False)
    assert p.compile() == 0
    build(p)
    delete_load(p, BRONZE, "l1")
    write(p, BRONZE, [("A1", "open", "l0", T1, "a-0")])      # a late, older delivery of A1
    build(p)
    assert p.query(f'select acct_id, status, _source_row_id, _ingested_at from main."{ENTITY}"') == \
        [("A1", "open", "a-0", T1)]
    assert p.query(f'select _source_row_id, _load_id, route from main."{ENTITY}__ledger" order by all') == \
        [("a-0", "l0", "keep")]
    finish(p, tmp_path, "incremental_by_key", True, False)
