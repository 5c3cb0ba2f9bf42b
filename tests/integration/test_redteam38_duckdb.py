"""Red team, issue 38 (DuckDB): one small project, one build history, four attacks.

- `reading` (type 1, incremental_by_key, no dedupe, key not required): replay without dedupe
  (`_replay_key_taken`). A reject whose key another row holds stays quarantined; a NULL-key
  reject while another NULL-key row is published (key_unique counts two NULL keys as one key
  held twice); two passing rejects of one key and no incumbent; the holder later quarantined
  (the held reject comes back on the next replay).
- `pub` (type 1, `full`, first build publishes in place): a load appended twice verbatim.
- `odd` (type 2, `full`): a key field with an odd name (case, space, non-ASCII) and key values
  that spell the version key's tags (`rn-1`, `n-1` beside a NULL key from source row n-1).
- `flip` (type 2, incremental_by_key): a source row delivered with a NULL key, then with a key.
"""
from __future__ import annotations

import pytest

from .harness import DuckProject, specs_folder

MODEL = """\
spec_version: 1
entities:
  reading:
    grain: one row per reading
    materialization: incremental_by_key
    key: [reading_id]
    fields: {reading_id: {type: string}, value: {type: int}}
    quarantine: {retention: 365d}
  pub:
    grain: one row per reading
    materialization: full
    key: [reading_id]
    fields: {reading_id: {type: string}, value: {type: int}}
    quarantine: {retention: 365d}
  odd:
    grain: one row per product and validity interval
    materialization: full
    key: ["Sku Ü"]
    scd: type2
    fields: {"Sku Ü": {type: string}, value: {type: int}}
    quarantine: {retention: 365d}
  flip:
    grain: one row per product and validity interval
    materialization: incremental_by_key
    key: [sku]
    scd: type2
    fields: {sku: {type: string}, value: {type: int}}
    quarantine: {retention: 365d}
"""
MAPPING = """\
mapping_version: 1
source: plant__%(name)s
target: %(name)s
key: {%(key)s: {from: "$.id"}}
fields:
  value: {from: "$.value", transform: [to_int], quality: [{rule: range, max: %(max)s, on_fail: quarantine}]}
unmapped: ["$._load_id", "$._ingested_at", "$._source_row_id"]
"""
COLUMNS = ["id", "value", "_load_id", "_ingested_at", "_source_row_id"]
L1, L2, L3 = ("l1", "2024-01-01 00:00:00"), ("l2", "2024-01-02 00:00:00"), ("l3", "2024-01-03 00:00:00")
KEYS = {"reading": "reading_id", "pub": "reading_id", "odd": '"Sku Ü"', "flip": "sku"}


def _specs(top: int) -> dict[str, str]:
    files = {"model.yaml": MODEL}
    for name, key in KEYS.items():
        files[f"{name}.yaml"] = MAPPING % {"name": name, "key": key, "max": top if name == "reading" else 100}
    return files


def _rows(project, sql):
    return [tuple(r.values()) for r in project.rows(sql)]


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("redteam38")
    project = DuckProject(tmp, specs_folder(tmp, _specs(100)))
    seen = {}
    # build 1
    project.write_bronze("plant__reading", COLUMNS, [
        ("K1", "500", *L1, "r-1"),                                # quarantined; K1 later held by r-2
        ("K5", "600", *L1, "r-5"), ("K5", "700", *L1, "r-6"),     # two rejects of one key, no incumbent
        (None, "500", *L1, "r-7"), (None, "50", *L1, "r-8"),      # a NULL-key reject; a NULL key published
    ])
    pub_rows = [("P1", "50", *L1, "p-1"), ("P2", "5000", *L1, "p-2")]
    project.write_bronze("plant__pub", COLUMNS, pub_rows + pub_rows)   # one load appended twice
    project.write_bronze("plant__odd", COLUMNS, [
        ("rn-1", "1", *L1, "o-1"), (None, "2", *L1, "n-1"), ("n-1", "3", *L1, "o-3")])
    project.write_bronze("plant__flip", COLUMNS, [(None, "1", *L1, "f-1"), ("F2", "2", *L1, "f-2")])
    assert project.compile() == 0
    seen["build 1"] = project.dbt("build", check=False)
    seen["pub"] = _rows(project, "select reading_id, value, _source_row_id from main.pub order by 1")
    seen["pub staged"] = _rows(project, "select _source_row_id, _bloomery_route, _bloomery_content is not null "
                                        "from main.pub__staged order by 1, 2")
    seen["pub ledger"] = _rows(project, "select _source_row_id, count(*) from main.pub__ledger group by 1 order by 1")
    # build 2
    project.write_bronze("plant__reading", COLUMNS, [("K1", "50", *L2, "r-2")], append=True)
    project.write_bronze("plant__odd", COLUMNS, [(None, "4", *L2, "n-1"), ("rn-1", "5", *L2, "o-1")], append=True)
    project.write_bronze("plant__flip", COLUMNS, [("F1", "3", *L2, "f-1")], append=True)
    seen["build 2"] = project.dbt("build", check=False)
    seen["odd"] = _rows(project, 'select "Sku Ü", value, _source_row_id, dbt_valid_to is null from main.odd '
                                 "order by 3, dbt_valid_from")
    seen["flip"] = _rows(project, "select sku, value, _source_row_id, dbt_valid_to is null from main.flip "
                                  "order by 3, dbt_valid_from")
    # the range relaxed, `reading` replayed
    for name, text in _specs(1000).items():
        (project.dir / "specs" / name).write_text(text)
    assert project.compile() == 0
    project.dbt("run-operation", "bloomery.replay", "--args", "{entity: reading}")
    seen["replay 1"] = _rows(project, "select reading_id, value, _source_row_id from main.reading order by 1, 3")
    seen["rejects 1"] = {r[0]: r[1:] for r in _rows(
        project, "select _source_row_id, failed_rules, resolved_at is not null from main.reading__reject")}
    # build 3: the holder of K1 is delivered again, out of range: it is quarantined, K1 is free
    project.write_bronze("plant__reading", COLUMNS, [("K1", "5000", *L3, "r-2")], append=True)
    seen["build 3"] = project.dbt("build", check=False)
    project.dbt("run-operation", "bloomery.replay", "--args", "{entity: reading}")
    seen["replay 2"] = _rows(project, "select reading_id, value, _source_row_id from main.reading order by 1, 3")
    seen["rejects 2"] = {r[0]: r[1:] for r in _rows(
        project, "select _source_row_id, failed_rules, resolved_at is not null from main.reading__reject")}
    seen["build 4"] = project.dbt("build", check=False)
    return seen


def _passes(result, *tests):
    for t in tests:
        assert result.statuses.get(t) == "pass", (t, {k: v for k, v in result.statuses.items()
                                                      if v not in ("pass", "success")})


def test_a_load_appended_twice_publishes_once(history):
    """First build of a `full` entity (published in place): the same identity twice, same content."""
    _passes(history["build 1"], "pub_conservation", "pub_key_unique", "pub_ingestion_metadata")
    assert history["pub"] == [("P1", 50, "p-1")]
    # the view over the published entity and the rest table: one kept row (without its delivery
    # content, which the entity does not publish)
    kept = [r for r in history["pub staged"] if r[1] == "keep"]
    assert kept == [("p-1", "keep", False)], history["pub staged"]
    # a verdict per bronze row (one per copy)
    assert history["pub ledger"] == [("p-1", 2), ("p-2", 2)]


def test_odd_key_name_and_tag_like_keys_version_apart(history):
    for label in ("build 1", "build 2"):
        _passes(history[label], "odd_conservation", "odd_key_unique")
    # ordered by source row id, then validity: NULL key n-1 is its own chain, apart from the key
    # spelled like its tag ('n-1') and from the key spelled like a NULL key's version key ('rn-1')
    assert history["odd"] == [
        (None, 2, "n-1", False), (None, 4, "n-1", True),
        ("rn-1", 1, "o-1", False), ("rn-1", 5, "o-1", True),
        ("n-1", 3, "o-3", True),
    ]


def test_a_null_key_then_a_key_from_one_source_row_is_refused_as_two_claims(history):
    """f-1 delivered with a NULL key, then with F1: one source row under two keys (a NULL part
    counts, quality-rules "Two deliveries of one source row"), which the blocking ingestion audit
    refuses, as documented, before anything is published; build 1 was clean."""
    _passes(history["build 1"], "flip_ingestion_metadata", "flip_conservation", "flip_key_unique")
    assert history["build 2"].statuses["flip_ingestion_metadata"] == "fail"
    assert sorted(history["flip"], key=repr) == sorted([(None, 1, "f-1", True), ("F2", 2, "f-2", True)], key=repr)


def test_replay_keeps_a_taken_key_quarantined(history):
    rejects = history["rejects 1"]
    assert rejects["r-1"][1] is False and list(rejects["r-1"][0]) == ["(key_unique)"]
    assert ("K1", 50, "r-2") in history["replay 1"]


def test_replay_never_publishes_a_null_key_twice(history):
    """r-8 publishes a NULL key; r-7, a NULL key too, passes on replay: admitting it makes two rows
    of the NULL key, which `reading_key_unique` counts as one key held twice (quality-rules)."""
    nulls = [r for r in history["replay 1"] if r[0] is None]
    assert len(nulls) <= 1, history["replay 1"]
    _passes(history["build 3"], "reading_key_unique", "reading_conservation")


def test_two_passing_rejects_of_one_key_publish_it_at_most_once(history):
    k5 = [r for r in history["replay 1"] if r[0] == "K5"]
    assert len(k5) <= 1, history["replay 1"]


def test_the_held_reject_comes_back_when_its_key_is_free(history):
    """r-2, K1's holder, is delivered again and quarantined: K1 leaves the entity. The next replay
    admits r-1, which passes and whose key no row holds now, and resolves its reject row.
    (Build 4's audits are not asserted here: its key_unique still fails on the NULL key that
    replay 1 published twice, test_replay_never_publishes_a_null_key_twice.)"""
    assert [r for r in history["replay 2"] if r[0] == "K1"] == [("K1", 500, "r-1")], history["replay 2"]
    assert history["rejects 2"]["r-1"][1] is True
    assert history["rejects 2"]["r-2"][1] is False


# --- second history: a merged type 2 entity and a type 2 entity whose loads are deleted ---------

MODEL2 = """\
spec_version: 1
entities:
  mt2:
    grain: one row per product and validity interval
    materialization: full
    key: [sku]
    scd: type2
    fields: {sku: {type: string}, value: {type: int}}
    quarantine: {retention: 365d}
    dedupe: {keep: latest_by, field: _ingested_at, tie_break: [_load_id]}
  mt3:
    grain: one row per product and validity interval
    materialization: full
    key: [sku]
    scd: type2
    fields: {sku: {type: string}, value: {type: int}}
    quarantine: {retention: 365d}
  del2:
    grain: one row per product and validity interval
    materialization: incremental_by_key
    key: [sku]
    scd: type2
    fields: {sku: {type: string}, value: {type: int}}
    quarantine: {retention: 365d}
"""


def _mapping2(source, target):
    return (f"mapping_version: 1\nsource: {source}\ntarget: {target}\nkey: {{sku: {{from: \"$.id\"}}}}\n"
            "fields:\n  value: {from: \"$.value\", transform: [to_int], quality: [{rule: range, max: 100, on_fail: quarantine}]}\n"
            'unmapped: ["$._load_id", "$._ingested_at", "$._source_row_id"]\n')


def _current(project, name):
    extra = "_source, " if name.startswith("mt") else ""
    return sorted(_rows(project, f"select {extra}sku, value, _source_row_id from main.{name} where dbt_valid_to is null"),
                  key=repr)


@pytest.fixture(scope="module")
def history2(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("redteam38b")
    files = {"model.yaml": MODEL2, "a.yaml": _mapping2("erp__a", "mt2"), "b.yaml": _mapping2("erp__b", "mt2"),
             "d.yaml": _mapping2("erp__d", "del2"),
             "a3.yaml": _mapping2("erp__a3", "mt3"), "b3.yaml": _mapping2("erp__b3", "mt3")}
    project = DuckProject(tmp, specs_folder(tmp, files))
    seen = {}
    # one source row id in two relations, a NULL key in each; a key in each relation
    project.write_bronze("erp__a", COLUMNS, [(None, "1", *L1, "x-1"), ("A1", "2", *L1, "a-2")])
    project.write_bronze("erp__b", COLUMNS, [(None, "3", *L1, "x-1"), ("B1", "4", *L1, "b-2")])
    project.write_bronze("erp__d", COLUMNS, [("D1", "1", *L1, "d-1"), (None, "2", *L1, "d-2"), ("D3", "500", *L1, "d-3")])
    project.write_bronze("erp__a3", COLUMNS, [(None, "1", *L1, "x-1"), ("A1", "2", *L1, "a-2")])
    project.write_bronze("erp__b3", COLUMNS, [(None, "3", *L1, "x-1"), ("B1", "4", *L1, "b-2")])
    assert project.compile() == 0
    seen["build 1"] = project.dbt("build", check=False)
    seen["mt2 1"] = _current(project, "mt2")
    # load 2: the NULL keys change; D1 delivered again by another source row
    project.write_bronze("erp__a", COLUMNS, [(None, "5", *L2, "x-1")], append=True)
    project.write_bronze("erp__b", COLUMNS, [(None, "6", *L2, "x-1")], append=True)
    project.write_bronze("erp__d", COLUMNS, [("D1", "7", *L2, "d-4")], append=True)
    project.write_bronze("erp__a3", COLUMNS, [(None, "5", *L2, "x-1")], append=True)
    project.write_bronze("erp__b3", COLUMNS, [(None, "6", *L2, "x-1")], append=True)
    seen["build 2"] = project.dbt("build", check=False)
    seen["mt2 2"] = _current(project, "mt2")
    seen["del2 2"] = _current(project, "del2")
    seen["mt3 2"] = _current(project, "mt3")
    # load 1 deleted from bronze (retention), then a build, a full refresh, l1 delivered again
    project.execute("delete from main.erp__d where _load_id = 'l1'")
    seen["build 3"] = project.dbt("build", check=False)
    seen["del2 3"] = _current(project, "del2")
    seen["build 4"] = project.dbt("build", "--full-refresh", check=False)
    seen["del2 4"] = _current(project, "del2")
    project.write_bronze("erp__d", COLUMNS, [("D1", "1", *L1, "d-1"), (None, "2", *L1, "d-2"), ("D3", "500", *L1, "d-3")],
                         append=True)
    seen["build 5"] = project.dbt("build", check=False)
    seen["del2 5"] = _current(project, "del2")
    return seen


def test_merged_type2_null_keys_of_one_row_id_in_two_relations_are_two_chains(history2):
    for label in ("build 1", "build 2"):
        _passes(history2[label], "mt2_conservation", "mt3_conservation", "mt3_key_unique", "mt3_source_collision")
    for name in ("mt2", "mt3"):
        a, b = ("erp__a", "erp__b") if name == "mt2" else ("erp__a3", "erp__b3")
        assert history2[f"{name} 2"] == sorted([(a, "A1", 2, "a-2"), (b, "B1", 4, "b-2"),
                                                (a, None, 5, "x-1"), (b, None, 6, "x-1")], key=repr), history2[f"{name} 2"]


def test_type2_through_deleted_loads_full_refresh_and_redelivery(history2):
    for label in ("build 1", "build 2", "build 3", "build 4", "build 5"):
        _passes(history2[label], "del2_conservation", "del2_key_unique", "del2_ingestion_metadata")
    want = sorted([("D1", 7, "d-4"), (None, 2, "d-2")], key=repr)
    assert history2["del2 2"] == want
    assert history2["del2 3"] == want
    assert history2["del2 5"] == want
