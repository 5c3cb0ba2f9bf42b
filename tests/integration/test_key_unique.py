"""Issue 20: an entity without `dedupe:` gets a blocking `<entity>_key_unique` audit. Nothing else
keeps one row per key there, so two bronze rows of one key would publish the key twice.

One spec, three entities: `tag` (no dedupe, outside the quality system: a plain table), `ticket`
(no dedupe, quarantine, declared `incremental_by_key`: the audit reads what earlier runs
published too) and `user` (dedupe: one row per key is dedupe's job, so no
audit). Each engine builds a clean bronze (everything passes), then a duplicated key on each
audited entity (its audit fails and stores the offending key), and two NULL keys (one group).
The audit is one `group by`, so it runs on Spark (parquet) as well: `-m spark`.
"""
from __future__ import annotations

import pytest

from .harness import INTEGRATION, DuckProject, PgProject

MODEL = """\
spec_version: 1
entities:
  tag:
    grain: one row per tag
    key: [tag_id, scope]
    fields: {tag_id: {type: string}, scope: {type: string}, label: {type: string}}
  ticket:
    grain: one row per ticket
    materialization: incremental_by_key
    key: [ticket_id]
    fields: {ticket_id: {type: string}, status: {type: string}}
    quarantine: {retention: 30d}
  user:
    grain: one row per user
    key: [user_id]
    fields: {user_id: {type: string}, name: {type: string}}
    dedupe: {keep: latest_by, field: _ingested_at, tie_break: [_load_id]}
"""
METADATA = '["$._load_id", "$._ingested_at", "$._source_row_id"]'
MAPPINGS = {
    "tags.yaml": 'mapping_version: 1\nsource: app__tags\ntarget: tag\nkey: {tag_id: {from: "$.id"}, scope: {from: "$.scope"}}\n'
                 'fields: {label: {from: "$.label"}}\n',
    "tickets.yaml": 'mapping_version: 1\nsource: app__tickets\ntarget: ticket\nkey: {ticket_id: {from: "$.id"}}\n'
                    f'fields: {{status: {{from: "$.status"}}}}\nunmapped: {METADATA}\n',
    "users.yaml": 'mapping_version: 1\nsource: app__users\ntarget: user\nkey: {user_id: {from: "$.id"}}\n'
                  f'fields: {{name: {{from: "$.name"}}}}\nunmapped: {METADATA}\n',
}
TAGS = ["id", "scope", "label"]
TICKETS = ["id", "status", "_load_id", "_ingested_at", "_source_row_id"]
USERS = ["id", "name", "_load_id", "_ingested_at", "_source_row_id"]
AT = "2024-01-01 00:00:00"


def specs(tmp_path):
    root = tmp_path / "specs"
    root.mkdir()
    (root / "model.yaml").write_text(MODEL)
    for name, text in MAPPINGS.items():
        (root / name).write_text(text)
    return root


def load(project, tags=(), tickets=()):
    project.write_bronze("app__tags", TAGS, [("t1", "a", "one"), ("t1", "b", "one elsewhere"), *tags])
    project.write_bronze("app__tickets", TICKETS, [("k1", "open", "l1", AT, "r1"), ("k2", "closed", "l1", AT, "r2"), *tickets])
    # two deliveries of one user: dedupe keeps one, and no key_unique audit is emitted for it
    project.write_bronze("app__users", USERS, [("u1", "Ann", "l1", AT, "s1"), ("u1", "Anne", "l2", "2024-01-02 00:00:00", "s2")])


@pytest.fixture(params=[pytest.param("duckdb", marks=pytest.mark.duckdb),
                        pytest.param("postgres", marks=pytest.mark.postgres),
                        pytest.param("spark", marks=pytest.mark.spark)])
def project(request, tmp_path):
    if request.param == "duckdb":
        return DuckProject(tmp_path, specs(tmp_path))
    if request.param == "postgres":
        return PgProject(tmp_path, request.getfixturevalue("pg_server"), specs(tmp_path))
    from .spark import SparkProject
    return SparkProject(tmp_path, specs(tmp_path))


def stored(project, audit: str, columns: str) -> list[tuple]:
    """The rows a failed audit stored (dbt's store_failures: schema `<target schema>_dbt_test__audit`)."""
    schema = f"{getattr(project, 'schema', 'main')}_dbt_test__audit"
    if project.engine == "spark":
        return [tuple(r) for r in project.sql(f"select {columns.replace(chr(34), '`')} from `{schema}`.`{audit}`").collect()]
    return project.query(f"select {columns} from {schema}.{audit}")


def test_a_clean_build_passes_and_a_dedupe_entity_has_no_key_audit(project):
    load(project)
    assert project.compile() == 0
    result = project.dbt("build")
    assert result.statuses["tag_key_unique"] == "pass"
    assert result.statuses["ticket_key_unique"] == "pass"
    assert "user_key_unique" not in result.statuses
    assert project.query('select name from main."user"') == [("Anne",)]


def test_a_duplicated_key_fails_the_build(project):
    # a second row of (t1, a): the composite key repeats; a second ticket k1 in a later load
    load(project, tags=[("t1", "a", "one again")], tickets=[("k1", "reopened", "l2", "2024-01-02 00:00:00", "r3")])
    assert project.compile() == 0
    result = project.dbt("build", check=False)
    assert not result.success
    assert result.statuses["tag_key_unique"] == "fail"
    assert result.statuses["ticket_key_unique"] == "fail"
    assert result.statuses["user"] == "success"
    # stored like the other blocking audits: the key held twice, and by how many rows
    assert stored(project, "tag_key_unique", 'tag_id, scope, "_bloomery_key_rows"') == [("t1", "a", 2)]
    assert stored(project, "ticket_key_unique", 'ticket_id, "_bloomery_key_rows"') == [("k1", 2)]


def test_two_null_keys_are_one_key_held_twice(project):
    """A NULL key cannot be joined, and two rows with equal keys NULLs included (IS NOT DISTINCT
    FROM) claim one identity: they fail. One NULL-key row is no duplicate."""
    load(project, tickets=[(None, "open", "l2", AT, "r3")])
    assert project.compile() == 0
    assert project.dbt("build").statuses["ticket_key_unique"] == "pass"
    load(project, tags=[("t9", None, "no scope"), ("t9", None, "no scope either")],
         tickets=[(None, "open", "l2", AT, "r3"), (None, "closed", "l2", AT, "r4")])
    result = project.dbt("build", check=False)
    assert result.statuses["tag_key_unique"] == "fail"
    assert result.statuses["ticket_key_unique"] == "fail"
    assert stored(project, "tag_key_unique", 'tag_id, scope, "_bloomery_key_rows"') == [("t9", None, 2)]
    assert stored(project, "ticket_key_unique", 'ticket_id, "_bloomery_key_rows"') == [(None, 2)]


@pytest.mark.duckdb
def test_a_type_2_entity_is_judged_on_its_current_versions(tmp_path):
    """History holds a key once per version: only the current versions (dbt_valid_to IS NULL)
    must be one per key. Without dedupe a type 2 entity's deliveries of a key are ranked by
    delivery order (issue 38), so two rows of one key in one load are decided by `_source_row_id`
    and recorded; a duplicated current version still fails the audit."""
    scd2 = INTEGRATION / "corpus" / "scd2" / "specs"
    root = tmp_path / "specs"
    root.mkdir()
    for f in scd2.iterdir():
        text = f.read_text().replace("    dedupe: {keep: latest_by, field: _ingested_at, tie_break: [_load_id]}\n", "")
        (root / f.name).write_text(text)
    assert "dedupe" not in (root / "entity_model.yaml").read_text()
    project = DuckProject(tmp_path, root)
    columns = ["sku", "tier", "amount", "_load_id", "_ingested_at", "_source_row_id"]
    project.write_bronze("erp__prices", columns, [("S1", "std", "10.00", "l1", AT, "r-1"), ("S2", "std", "5.00", "l1", AT, "r-2")])
    assert project.compile() == 0
    assert project.dbt("build").statuses["price_key_unique"] == "pass"
    project.write_bronze("erp__prices", columns, [("S1", "std", "12.00", "l2", "2024-01-02 00:00:00", "r-3")], append=True)
    result = project.dbt("build")
    assert result.statuses["price_key_unique"] == result.statuses["price_conservation"] == "pass"
    assert project.query("select count(*), count(*) filter (where dbt_valid_to is null) from main.price where sku = 'S1'") \
        == [(2, 1)]
    project.write_bronze("erp__prices", columns, [("S2", "std", "6.00", "l3", "2024-01-03 00:00:00", "r-4"),
                                                  ("S2", "std", "7.00", "l3", "2024-01-03 00:00:00", "r-5")], append=True)
    result = project.dbt("build")
    assert result.statuses["price_key_unique"] == result.statuses["price_conservation"] == "pass"
    assert project.query("select _source_row_id, route, winner_row_id from main.price__ledger "
                         "where _source_row_id in ('r-4', 'r-5') order by 1") == [("r-4", "deduped", "r-5"), ("r-5", "keep", None)]
    # the snapshot's current versions doubled by hand: the audit fails and stores the key
    project.execute("insert into main.price select * from main.price where sku = 'S2' and dbt_valid_to is null")
    result = project.dbt("test", "--select", "price_key_unique", check=False)
    assert result.statuses["price_key_unique"] == "fail"
    assert stored(project, "price_key_unique", 'sku, "_bloomery_key_rows"') == [("S2", 2)]
