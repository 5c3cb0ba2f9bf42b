"""Red team, issue 37: hostile bronze VALUES and value-changing chains, on DuckDB and PostgreSQL.

- no value changes without a trace: a lossy cast fires `coercible`, a nulling step before a cast
  still lets the cast judge what it passes on;
- a hostile value (quotes per engine, backslashes, control characters, Jinja, a placeholder, very
  long, unicode) never changes where its row goes and round-trips exactly, in the entity and in the
  reject row's `raw`; a `raw` crafted to look like a passing row is never admitted by replay;
- a re-delivery of one (`_source_row_id`, `_load_id`) with other content is never silently lost;
- `bloomery summary` text is inert and its JSON exact.
One dbt build per engine holds every named case (adversarial.build_cases).
"""
from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from . import adversarial as adv
from .adversarial import Case, entity, mapping, rows_with_meta
from .harness import ENGINES, engine_project
from .reused_project import ReusedDuckProject, ReusedPgProject

pytestmark = pytest.mark.dbt_artifacts   # `bloomery summary` reads run_results.json

S = {"type": "string"}
BASE = 100     # case numbers of this module: rt100...


def _one(n, ftype, transform, values, place, quality=None):
    name = f"rt{n:02d}"
    fm = {"from": "$.v"}
    if transform is not None:
        fm["transform"] = transform
    if quality:
        fm["quality"] = quality
    return dict(entities={name: entity({"id": S, "v": ftype})},
                mappings=[mapping(f"{name}_src", name, {"id": {"from": "$.id"}}, {"v": fm})],
                bronze={f"{name}_src": (["id", "v", *adv.META_COLUMNS],
                                        rows_with_meta([(f"k{i}", v) for i, v in enumerate(values)]))},
                place={name: {f"s{i + 1}": p for i, p in enumerate(place)}})


INT, DEC81 = {"type": "int"}, {"type": "decimal(8,1)"}
CHAINS = {
    "nullif-then-to-int": (INT, [{"nullif": ""}, "to_int"], ["", "abc", "7"], ["keep", "reject", "keep"]),
    "to-decimal-8-1-rounds": (DEC81, [{"to_decimal": [8, 1]}], ["1.25", "1.2", "1.20"], ["reject", "keep", "keep"]),
    "to-int-of-a-fraction": (INT, ["to_int"], ["12.7", "12", "-0.5"], ["reject", "keep", "reject"]),
    "to-int-overflow": (INT, ["to_int"], ["99999999999999999999", "5"], ["reject", "keep"]),
    "decimal-empty-chain-lossy": (DEC81, None, ["1.25", "1.5"], ["reject", "keep"]),
    "int-empty-chain-fraction": (INT, None, ["3.9", "3"], ["reject", "keep"]),
    # "" reaches the cast non-NULL and leaves it NULL: it fires too (reference 3.1)
    "coalesce-after-failed-cast": (INT, ["to_int", {"coalesce": 0}], ["abc", "", "4"], ["reject", "reject", "keep"]),
    "trim-nullif-to-int": (INT, ["trim", {"nullif": "-"}, "to_int"], [" - ", " x ", " 8 "], ["keep", "reject", "keep"]),
}

TOKEN_NAMES = list(adv.tokens(0))
VALUES_N = BASE + 50     # the entity carrying one row per hostile token


def c_values(n):
    """Per token t: a row whose `w` is t (in the spec's in_set: kept, w exactly t) and a row whose
    `v` is t (not `ok`: rejected, raw exactly the bronze row)."""
    name, toks = f"rt{n:02d}", adv.tokens(n)
    rows, place = [], {}
    for i, t in enumerate(TOKEN_NAMES):
        rows.append((f"w{i}", "ok", toks[t]))
        rows.append((f"v{i}", toks[t], "ok"))
    rows = rows_with_meta(rows)
    for r in rows:
        place[r[-1]] = "keep" if r[0].startswith("w") else "reject"
    fields = {"v": {"from": "$.v", "quality": [{"rule": "in_set", "values": ["ok"], "on_fail": "quarantine"}]},
              "w": {"from": "$.w", "quality": [{"rule": "in_set", "values": ["ok", *toks.values()], "on_fail": "quarantine"}]}}
    return dict(entities={name: entity({"id": S, "v": S, "w": S})},
                mappings=[mapping(f"{name}_src", name, {"id": {"from": "$.id"}}, fields)],
                bronze={f"{name}_src": (["id", "v", "w", *adv.META_COLUMNS], rows)}, place={name: place},
                must_build=True)


FORGE_N = BASE + 51
FORGED = ['bad","v":"ok', 'bad\\","v":"ok', "bad'}", 'bad"}, "v": "ok', "bad\\u0022,\\u0022v\\u0022:\\u0022ok",
          "bad\x00".replace("\x00", "\x01"), '{"v": "ok"}']


def c_forge(n):
    name = f"rt{n:02d}"
    rows = rows_with_meta([(f"k{i}", v) for i, v in enumerate(FORGED)])
    return dict(entities={name: entity({"id": S, "v": S})},
                mappings=[mapping(f"{name}_src", name, {"id": {"from": "$.id"}},
                                  {"v": {"from": "$.v", "quality": [{"rule": "in_set", "values": ["ok"], "on_fail": "quarantine"}]}})],
                bronze={f"{name}_src": (["id", "v", *adv.META_COLUMNS], rows)},
                place={name: {r[-1]: "reject" for r in rows}}, must_build=True)


CONTROL_N = BASE + 52
CONTROL_VALUE = "\x1b[2J\x1b]0;pwned\x07boom"


def c_control_in_an_error(n):
    """A non-quality entity whose hard cast aborts on a value with control bytes: the model stops
    (by design), and dbt's message, carrying the value, reaches `bloomery summary`."""
    name = f"rt{n:02d}"
    return dict(entities={name: entity({"id": S, "v": INT}, quarantine=False, dedupe=False)},
                mappings=[{"source": f"{name}_src", "target": name, "key": {"id": {"from": "$.id"}},
                           "fields": {"v": {"from": "$.v"}}}],
                bronze={f"{name}_src": (["id", "v"], [("k1", CONTROL_VALUE)])}, allow=("error",), must_build=True)


def make_cases() -> list[Case]:
    cases = [Case(id=cid, n=BASE + i, must_build=True, **_one(BASE + i, *spec)) for i, (cid, spec) in enumerate(CHAINS.items())]
    cases.append(Case(id="hostile-values", n=VALUES_N, **c_values(VALUES_N)))
    cases.append(Case(id="forged-raw", n=FORGE_N, **c_forge(FORGE_N)))
    cases.append(Case(id="control-bytes-in-an-error", n=CONTROL_N, **c_control_in_an_error(CONTROL_N)))
    return cases


CASES = make_cases()
BY_ID = {c.id: c for c in CASES}


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("adv_values_specs")
    return {c.id: adv.judge_spec(c, tmp) for c in CASES}


@pytest.fixture(scope="module", params=ENGINES)
def outcomes(request, tmp_path_factory, verdicts):
    engine = request.param
    counter = iter(range(1000))
    return adv.build_cases(lambda: engine_project(engine, tmp_path_factory.mktemp(f"adv_values_{engine}_{next(counter)}"), request),
                           CASES, verdicts)


CHAIN_CASES = [c for c in CASES if c.id in CHAINS]


@pytest.mark.parametrize("case", CHAIN_CASES, ids=[c.id for c in CHAIN_CASES])
def test_no_value_changes_without_a_trace(case, verdicts, outcomes):
    adv.judge(case, verdicts[case.id], outcomes.get(case.id))
    o = outcomes[case.id]
    ent = f"rt{case.n:02d}"
    rejected = {r[0]: list(r[1]) for r in o.project.query(f"select _source_row_id, failed_rules from main.{ent}__reject")}
    assert all("v_coercible" in rules for rules in rejected.values()), rejected


def _values_outcome(verdicts, outcomes):
    case = BY_ID["hostile-values"]
    adv.judge(case, verdicts[case.id], outcomes.get(case.id))
    return case, outcomes[case.id].project


@pytest.mark.parametrize("token", TOKEN_NAMES)
def test_a_hostile_value_is_data(token, verdicts, outcomes):
    case, project = _values_outcome(verdicts, outcomes)
    value = adv.tokens(case.n)[token]
    i = TOKEN_NAMES.index(token)
    ent = f"rt{case.n:02d}"
    kept = project.rows(f"select id, v, w from main.{ent} where id = 'w{i}'")
    assert kept == [{"id": f"w{i}", "v": "ok", "w": value}], "kept with its value exactly as delivered"
    raw = project.query(f"select raw from main.{ent}__reject where json_extract_string(raw, '$.id') = 'v{i}'"
                        if project.engine == "duckdb" else
                        f"select raw from main.{ent}__reject where (raw::jsonb)->>'id' = 'v{i}'")
    assert len(raw) == 1, "rejected once"
    got = json.loads(raw[0][0]) if isinstance(raw[0][0], str) else raw[0][0]
    bronze = next(r for r in case.bronze[f"{ent}_src"][1] if r[0] == f"v{i}")
    assert got == dict(zip(case.bronze[f"{ent}_src"][0], bronze)), "raw holds the bronze row exactly"


def test_a_forged_raw_is_never_admitted_by_replay(verdicts, outcomes):
    case = BY_ID["forged-raw"]
    adv.judge(case, verdicts[case.id], outcomes.get(case.id))
    project = outcomes[case.id].project
    ent = f"rt{case.n:02d}"
    project.dbt("run-operation", "bloomery.replay", "--args", f"{{entity: {ent}}}")
    assert project.query(f"select count(*) from main.{ent}") == [(0,)], "replay admitted a forged row"
    assert project.query(f"select count(*) from main.{ent}__reject where resolved_at is null") == [(len(FORGED),)]


def test_summary_text_is_inert_and_json_exact(verdicts, outcomes):
    case = BY_ID["control-bytes-in-an-error"]
    adv.judge(case, verdicts[case.id], outcomes.get(case.id))
    o = outcomes[case.id]
    assert f"rt{case.n:02d}" in o.summary_text, o.summary_text
    adv.assert_inert(o.summary_text, "bloomery summary")
    data = json.loads(o.summary_json)
    assert isinstance(data, dict) and "entities" in data


# -- a re-delivery with other content on an incremental entity ----------------------------------------
@pytest.mark.parametrize("engine", ENGINES)
def test_a_redelivered_source_row_with_other_content_is_not_lost(engine, tmp_path, request):
    n = BASE + 60
    name = f"rt{n:02d}"
    spec = c_forge(n)
    spec["entities"][name]["materialization"] = "incremental_by_key"
    case = Case(id="redelivery", n=n, **{k: v for k, v in spec.items() if k != "place"})
    project = engine_project(engine, tmp_path, request)
    adv.write_tree(case.files(), project.dir / "specs")
    cols = ["id", "v", *adv.META_COLUMNS]
    project.write_bronze(f"{name}_src", cols, [("k1", "ok", "l1", "2024-03-01 00:00:00", "s1")])
    assert project.compile() == 0
    project.dbt("build")
    # the same (_source_row_id, _load_id) again, later, with other content
    project.write_bronze(f"{name}_src", cols, [("k1", "bad", "l1", "2024-03-02 00:00:00", "s1")], append=True)
    result = project.dbt("build", check=False)
    loud = {k: v for k, v in result.statuses.items() if v not in ("success", "pass", "skipped", "warn")}
    kept = project.query(f"select v from main.{name}")
    rejected = project.query(f"select count(*) from main.{name}__reject where resolved_at is null")[0][0]
    assert loud or rejected == 1 or kept == [("bad",)], \
        f"the second delivery is nowhere and nothing said so: entity {kept}, unresolved rejects {rejected}"


# -- property: hostile bronze column names and values, one fixed spec ----------------------------------
PROP = 190
PROP_SPEC = Case(id="prop", n=PROP, **_one(PROP, S, ["trim"], [], [],
                                           [{"rule": "in_set", "values": ["ok"], "on_fail": "quarantine"}]))
hostile = st.lists(st.sampled_from(adv.ATOMS + ["ok", "a", "keep", "quarantine", "deduped"]), min_size=0, max_size=6).map("".join)
column_name = st.sampled_from(["_bloomery_route", "_BLOOMERY_ROUTE", "_bloomery_winner", "_bloomery_rank", "_bloomery_raw",
                               "__bloomery_col_0__", "__BLOOMERY_COL_0__", "_bloomery_source", "raw", "failed_rules",
                               "reject_id", "resolved_at", "x'y", "x`y", "x\\y", "{{ x }}", "ü_😀"])


@pytest.fixture(scope="module", params=ENGINES)
def reused(request, tmp_path_factory):
    tmp = tmp_path_factory.mktemp(f"adv_prop_{request.param}")
    specs = adv.write_tree(PROP_SPEC.files(), tmp / "specs")
    project = (ReusedDuckProject(tmp, {"base": specs}) if request.param == "duckdb"
               else ReusedPgProject(tmp, request.getfixturevalue("pg_server"), {"base": specs}))
    yield project
    project.close()


@settings(max_examples=8, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(extra=st.lists(column_name, min_size=1, max_size=4, unique_by=str.lower),
       values=st.lists(st.tuples(hostile, hostile), min_size=1, max_size=5))
def test_bronze_names_and_values_never_steer(reused, extra, values):
    """Bronze columns named like the pipeline's own, carrying route words, next to hostile values:
    every row is where `v in ('ok')` (after trim) says, and the canary is intact."""
    reused.reset()
    reused.execute(f"create table main.{adv.canary(PROP)} as select 42 as alive")
    name = f"rt{PROP}"
    rows = [(f"k{i}", v, *[w] * len(extra), "l1", "2024-03-01 00:00:00", f"s{i + 1}") for i, (v, w) in enumerate(values)]
    reused.write_bronze(f"{name}_src", ["id", "v", *extra, *adv.META_COLUMNS], rows)
    result = reused.dbt("build", check=False)
    bad = {k: v for k, v in result.statuses.items() if v.split(":")[0] not in ("success", "pass", "warn", "skipped")}
    assert not bad, bad
    assert reused.query(f"select * from main.{adv.canary(PROP)}") == [(42,)]
    adv.assert_placed(reused, name, {r[-1]: "keep" if r[1].strip(" ") == "ok" else "reject" for r in rows})
