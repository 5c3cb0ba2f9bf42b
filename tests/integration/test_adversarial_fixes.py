"""Red team 2, issue 37: attacks on the fixes, from the docs and the public surface only.

What tests/integration/test_adversarial_names.py and test_adversarial_values.py leave out:

- the delivered-key column `_bloomery_delivered__<col>` and bloomery's namespace in positions those
  modules do not try (key columns, deep `$.col.x` paths, dedupe and partition columns, a fullwidth
  look-alike), and generated relation names met in another letter case;
- `sql_test_keys` bypasses: a SQL-carrying test spelled another way (`quote:` falsy but not
  `false`, `config:` nested, a YAML merge key) and a test's stored failures landing on bronze;
- expressions in parts with unicode names, quoted literals and a very long condition;
- lossy casts at their edges (signs, halves, exponents, NaN, overflow, 1000 digits, decimal(38,s));
- a delivery's content: one identity with other content in an unmapped (not redacted) column, on a
  single and on a merged entity;
- the terminal: control bytes and bidi overrides in spec file names, folders, `plan` and `summary`.

Each named case is judged by `adversarial.judge` (a clean located refusal, or a build as data), and
the accepted ones of an engine share ONE dbt build (adversarial.build_cases). A case's `check` adds
what its promise says beyond placement (published values exact, SQL of a test that did not run).
"""
from __future__ import annotations

import json
import re
from decimal import Decimal
from pathlib import Path

import pytest
import yaml

from . import adversarial as adv
from .adversarial import Case, entity, mapping, rows_with_meta
from .harness import ENGINES, engine_project

pytestmark = pytest.mark.dbt_artifacts   # `bloomery summary` reads run_results.json

S = {"type": "string"}
BASE = 200      # case numbers of this module: rt200...
IN_OK = [{"rule": "in_set", "values": ["ok"], "on_fail": "quarantine"}]


def _simple(n, fields_model, fields_map, columns, rows, quality=None, place=None, unmapped=(), key_from="$.id",
            ent_extra=None, **kw):
    """One entity `rtNNN` keyed by `id` over bronze `rtNNN_src` (rows get s1, s2, ... as source row ids)."""
    name = f"rt{n:02d}"
    ent = entity({"id": S, **fields_model}, quality=quality)
    ent.update(ent_extra or {})
    return dict(entities={name: ent},
                mappings=[mapping(f"{name}_src", name, {"id": {"from": key_from}}, fields_map, unmapped)],
                bronze={f"{name}_src": ([*columns, *adv.META_COLUMNS], rows_with_meta(rows))},
                place={name: place} if place else {}, **kw)


def _field(fname, **kw):
    """A field called `fname` from bronze column `f`, beside a judged `v`."""
    def make(n):
        return _simple(n, {fname: S, "v": S}, {fname: {"from": "$.f"}, "v": {"from": "$.v", "quality": IN_OK}},
                       ["id", "f", "v"], [("k1", "val", "ok"), ("k2", "val", "bad")],
                       place={"s1": "keep", "s2": "reject"}, **kw)
    return make


# -- reserved names in positions the first red team did not try ------------------------------------------
def c_key_column_reads_reserved(n):
    # the key's bronze column is in the namespace: refused like any other bronze column a mapping reads
    return _simple(n, {"v": S}, {"v": {"from": "$.v", "quality": IN_OK}}, ["_Bloomery_Route", "v"],
                   [("k1", "ok"), ("k2", "bad")], place={"s1": "keep", "s2": "reject"}, key_from="$._Bloomery_Route",
                   must_refuse=True)


def c_deep_path_under_reserved_unmapped(n):
    return _simple(n, {"v": S}, {"v": {"from": "$.v", "quality": IN_OK}}, ["id", "v", "_bloomery_raw"],
                   [("k1", "ok", '{"x": 1}'), ("k2", "bad", '{"x": 2}')], place={"s1": "keep", "s2": "reject"},
                   unmapped=["$._bloomery_raw.x"], must_refuse=True)


def c_tie_break_reserved_upper(n):
    base = _simple(n, {"v": S}, {"v": {"from": "$.v"}}, ["id", "v"], [("k1", "ok")], place={"s1": "keep"},
                   must_refuse=True)
    base["entities"][f"rt{n:02d}"]["dedupe"] = {"keep": "latest_by", "field": "_ingested_at",
                                               "tie_break": ["_BLOOMERY_RANK"]}
    return base


def c_partition_by_reserved(n):
    base = _simple(n, {"v": S}, {"v": {"from": "$.v"}}, ["id", "v"], [("k1", "ok")], place={"s1": "keep"},
                   must_refuse=True)
    base["entities"][f"rt{n:02d}"].update(materialization="incremental_by_partition",
                                         partition_by=["days(_BLOOMERY_INGESTED)"])
    return base


def c_fullwidth_lookalike(n):
    # not bloomery's namespace (no engine folds fullwidth letters to ASCII): a name like any other,
    # published under its own name with its value exact
    f = "＿ＢＬＯＯＭＥＲＹ＿route"
    base = _field(f, must_build=True)(n)
    base["check"] = lambda p, c, r: _published(p, c, f, {"k1": "val"})
    return base


def _published(project, case, column, want):
    ent = f"rt{case.n:02d}"
    got = dict(project.query(f'select id, "{column}" from main."{ent}"'))
    assert got == want, f"`{column}` published {got}, want {want}"


# -- generated relations and bronze in another letter case --------------------------------------------------
def c_source_upper_case_of_sibling_reject(n):
    # bronze `RTnn__REJECT` feeds entity b; entity a generates `rtnn__reject`: on DuckDB one relation
    a, b = f"rt{n:02d}", f"rt{n:02d}_b"
    src = f"RT{n:02d}__REJECT"
    return dict(entities={a: entity({"id": S, "v": S}), b: entity({"id": S, "v": S})},
                mappings=[mapping(f"{a}_src", a, {"id": {"from": "$.id"}}, {"v": {"from": "$.v", "quality": IN_OK}}),
                          mapping(src, b, {"id": {"from": "$.id"}}, {"v": {"from": "$.v", "quality": IN_OK}})],
                bronze={f"{a}_src": (["id", "v", *adv.META_COLUMNS], rows_with_meta([("k1", "bad")])),
                        src: (["id", "v", *adv.META_COLUMNS], rows_with_meta([("k1", "ok")], prefix="b"))},
                place={a: {"s1": "reject"}, b: {"b1": "keep"}}, must_refuse=True)


def c_entity_named_like_sibling_staged_rest(n):
    """Entity `a` publishes through `a__staged_rest` (a relation its post-hook writes, not a model);
    an entity named `a__staged_rest` is a model of that name in the same schema."""
    a = f"rt{n:02d}"
    b = f"{a}__staged_rest"
    return dict(entities={a: entity({"id": S, "v": S}), b: entity({"id": S, "v": S})},
                mappings=[mapping(f"{a}_src", a, {"id": {"from": "$.id"}}, {"v": {"from": "$.v", "quality": IN_OK}}),
                          mapping(f"{a}_src2", b, {"id": {"from": "$.id"}}, {"v": {"from": "$.v", "quality": IN_OK}})],
                bronze={f"{a}_src": (["id", "v", *adv.META_COLUMNS], rows_with_meta([("k1", "ok"), ("k2", "bad")])),
                        f"{a}_src2": (["id", "v", *adv.META_COLUMNS],
                                      rows_with_meta([("k1", "ok"), ("k2", "ok"), ("k3", "bad")], prefix="b"))},
                place={a: {"s1": "keep", "s2": "reject"}, b: {"b1": "keep", "b2": "keep", "b3": "reject"}})


# -- sql_test_keys: SQL in a user's test, spelled another way ------------------------------------------------
def _seq(n):
    return f"main.rt_seq_{n:02d}"


def _seq_call(n):
    """`nextval(<the sequence's name>)` written without a quote or a backslash (chr() per letter), so
    the value passes any check that looks for quotes; as SQL it advances the case's sequence."""
    name = "||".join(f"chr({ord(ch)})" for ch in _seq(n))
    return f"cast(nextval({name}) as varchar)"


def _user_test(test_entry, allow=("warn", "fail", "error")):
    """A user's own dbt test on field `v`; the case's sequence must not advance (no spec SQL ran)."""
    def make(n):
        base = _simple(n, {"v": S}, {"v": {"from": "$.v", "quality": IN_OK}}, ["id", "v"],
                       [("k1", "ok"), ("k2", "bad")], place={"s1": "keep", "s2": "reject"}, allow=allow)
        entry = test_entry(n)
        base["entities"][f"rt{n:02d}"]["fields"]["v"] = {"type": "string", "data_tests": [entry]}
        base["setup"] = (f"create sequence {_seq(n)} start 1",)

        def check(project, case, result):
            assert project.query(f"select nextval('{_seq(n)}')") == [(1,)], \
                "SQL from the spec's test ran: the canary sequence advanced"
        base["check"] = check
        return base
    return make


def _accepted_values_quote(quote):
    return _user_test(lambda n: {"accepted_values": {"values": [_seq_call(n)], "quote": quote,
                                                     "config": {"severity": "warn"}}})


def c_store_failures_onto_bronze(n):
    """A test config may name where dbt stores its failures (`schema`, `alias`, `store_failures`);
    with the common generate_schema_name override (custom schema used as is, see OVERRIDE) that is
    the bronze relation, which dbt's test materialization drops and replaces."""
    name = f"rt{n:02d}"
    base = _simple(n, {"v": S}, {"v": {"from": "$.v", "quality": IN_OK}}, ["id", "v"],
                   [("k1", "ok"), ("k2", "bad"), ("k3", None)], place={"s1": "keep", "s2": "reject", "s3": "reject"},
                   allow=("warn", "fail", "error"))
    base["entities"][name]["fields"]["v"] = {"type": "string", "data_tests": [
        {"accepted_values": {"values": ["zz"], "config": {"store_failures": True, "schema": "main", "severity": "warn",
                                                          "alias": f"{name}_src"}}}]}
    return base


def c_nested_config_where(n):
    return _user_test(lambda n: {"not_null": {"config": {"config": {"where": f"{_seq_call(n)} is not null"}}}})(n)


# -- expressions in parts ------------------------------------------------------------------------------------
def c_expr_unicode_names(n):
    f1, f2 = "naïve_数据", "😀_ü"
    return _simple(n, {f1: S, f2: S}, {f1: {"from": "$.a"}, f2: {"from": "$.b"}}, ["id", "a", "b"],
                   [("k1", "x", "y"), ("k2", "z", "z")],
                   [{"rule": "expression", "name": "rt_expr", "expr": f'"{f1}" <> "{f2}" and {f1} is not null',
                     "on_fail": "quarantine"}], {"s1": "keep", "s2": "reject"}, must_build=True)


def c_expr_literal_backslash(n):
    # read differently per engine (PostgreSQL's standard strings vs. escapes): built exactly, or refused
    return _simple(n, {"v": S}, {"v": {"from": "$.v"}}, ["id", "v"], [("k1", "a\\b"), ("k2", "ab")],
                   [{"rule": "expression", "name": "rt_expr", "expr": "v <> 'a\\b'", "on_fail": "quarantine"}],
                   {"s1": "reject", "s2": "keep"})


def c_expr_literal_quotes_and_dollars(n):
    lit = "a'b''c$$d$x$e;--f/*g*/{h}"
    expr = "v <> '" + lit.replace("'", "''") + "'"
    return _simple(n, {"v": S}, {"v": {"from": "$.v"}}, ["id", "v"], [("k1", lit), ("k2", "a'b"), ("k3", "a'b'c$$d$x$e;")],
                   [{"rule": "expression", "name": "rt_expr", "expr": expr, "on_fail": "quarantine"}],
                   {"s1": "reject", "s2": "keep", "s3": "keep"}, must_build=True)


def c_expr_very_long(n):
    expr = " and ".join(f"v <> 'x{i}'" for i in range(600))
    return _simple(n, {"v": S}, {"v": {"from": "$.v"}}, ["id", "v"], [("k1", "ok"), ("k2", "x599"), ("k3", "x0")],
                   [{"rule": "expression", "name": "rt_expr", "expr": expr, "on_fail": "quarantine"}],
                   {"s1": "keep", "s2": "reject", "s3": "reject"})


# -- lossy casts at the edges ---------------------------------------------------------------------------------
def _cast(ftype, transform, rows):
    """rows: (value, placement, published value or None). Published values are checked exactly."""
    def make(n):
        name = f"rt{n:02d}"
        fm = {"from": "$.v"}
        if transform is not None:
            fm["transform"] = transform
        data = [(f"k{i}", v) for i, (v, _, _) in enumerate(rows)]
        want = {f"k{i}": w for i, (_, p, w) in enumerate(rows) if p == "keep"}

        where = {f"s{i + 1}": p for i, (_, p, _) in enumerate(rows)}

        def check(project, case, result):
            got = dict(project.query(f'select id, v from main."{name}"'))
            try:
                adv.assert_placed(project, name, where)
            except AssertionError as e:
                shown = {f"k{i}": (v[:30], got.get(f"k{i}", "-")) for i, (v, _, _) in enumerate(rows)}
                raise AssertionError(f"{e}\n(bronze value, published value) per row: {shown}") from None
            norm = {k: None if v is None else Decimal(str(v)).normalize() for k, v in got.items()}
            exp = {k: None if v is None else Decimal(v).normalize() for k, v in want.items()}
            assert norm == exp, f"published values differ from the documented ones:\n got {norm}\nwant {exp}"
            rejected = {r[0]: list(r[1]) for r in project.query(
                f"select _source_row_id, failed_rules from main.{name}__reject where resolved_at is null")}
            assert all("v_coercible" in rules for rules in rejected.values()), rejected
        return dict(entities={name: entity({"id": S, "v": ftype})},
                    mappings=[mapping(f"{name}_src", name, {"id": {"from": "$.id"}}, {"v": fm})],
                    bronze={f"{name}_src": (["id", "v", *adv.META_COLUMNS], rows_with_meta(data))},
                    check=check, must_build=True)
    return make


ROUND = "half_away_from_zero"
K, R = "keep", "reject"
ZERO_1000 = "0." + "0" * 999 + "1"            # 1e-1000 spelled out
BIG_1000 = "1" + "0" * 1000                   # a 1001-digit integer
FIVE_1000 = "5." + "0" * 1000                 # 5, with 1000 trailing zeros
CASES_CAST = {
    "rounding-decimal-signs-and-halves": _cast({"type": "decimal(8,1)"}, [{"to_decimal": [8, 1], "rounding": ROUND}], [
        ("-0.05", K, "-0.1"), ("0.05", K, "0.1"), ("-2.25", K, "-2.3"), ("+1.25", K, "1.3"), (" 1.25 ", K, "1.3"),
        ("1e-1", K, "0.1"), ("2.5E-1", K, "0.3"), ("-0.04", K, "0"), ("NaN", R, None), ("Infinity", R, None),
        ("-inf", R, None), ("9999999.95", R, None)]),
    "rounding-int-halves-and-overflow": _cast({"type": "int"}, [{"name": "to_int", "rounding": ROUND}], [
        ("-0.5", K, "-1"), ("2.5", K, "3"), ("-2.5", K, "-3"), ("0.49", K, "0"), ("1e0", K, "1"),
        ("9223372036854775807", K, "9223372036854775807"), ("-9223372036854775808", K, "-9223372036854775808"),
        ("9223372036854775808", R, None), ("9223372036854775807.5", R, None), ("1e400", R, None),
        (ZERO_1000, K, "0"), (BIG_1000, R, None)]),
    "to-int-edges-unasked": _cast({"type": "int"}, ["to_int"], [
        ("+7", K, "7"), ("-0", K, "0"), (FIVE_1000, K, "5"), (ZERO_1000, R, None), (BIG_1000, R, None),
        ("1e-400", R, None), ("NaN", R, None), ("-Infinity", R, None), ("0x1F", R, None),
        ("92233720368547758070", R, None), ("1.5e1", K, "15"), ("15e-1", R, None),
        ("0o17", R, None), ("0b101", R, None)]),
    "decimal-38-boundaries": _cast({"type": "decimal(38,2)"}, [{"to_decimal": [38, 2]}], [
        ("9" * 36 + ".99", K, "9" * 36 + ".99"), ("-" + "9" * 36 + ".99", K, "-" + "9" * 36 + ".99"),
        ("9" * 37, R, None), ("9" * 36 + ".995", R, None), ("1e36", R, None), ("1e35", K, "1" + "0" * 35),
        ("0.001e1", K, "0.01"), ("1" + "0" * 1000 + ".00", R, None)]),
    "decimal-38-38": _cast({"type": "decimal(38,38)"}, [{"to_decimal": [38, 38]}], [
        ("0." + "9" * 38, K, "0." + "9" * 38), ("1", R, None), ("0." + "1" * 39, R, None), ("-0.5", K, "-0.5")]),
    "nullif-then-rounding-cast": _cast({"type": "int"}, [{"nullif": "x"}, {"name": "to_int", "rounding": ROUND}], [
        ("x", K, None), ("2.5", K, "3"), ("y", R, None), ("", R, None)]),
    "implicit-decimal-cast-exponents": _cast({"type": "decimal(8,1)"}, None, [
        ("1e-1", K, "0.1"), ("1.27e1", K, "12.7"), ("1.25e-1", R, None), ("-1E+2", K, "-100"), ("1e7", R, None),
        ("12.70000000000000000000000000000000000000000000", K, "12.7"), ("1e-50", R, None), ("-1e-39", R, None),
        ("NaN", R, None), ("0x1F", R, None)]),
}


# -- a delivery's content --------------------------------------------------------------------------------------
def _audit_check(entity_name, must_fail=True):
    def check(project, case, result):
        audit = {k: v for k, v in result.statuses.items() if f"{entity_name}_ingestion_metadata" in k}
        assert audit, f"no `{entity_name}_ingestion_metadata` audit ran: {sorted(result.statuses)}"
        failed = [k for k, v in audit.items() if v.split(":")[0] in ("fail", "error")]
        assert failed, f"one identity delivered twice with other content, and the audit passed: {audit}"
    return check


def c_identity_reuse_unmapped_column(n):
    """One identity (relation, row id, load, ingested at) twice, the copies differing in an unmapped
    column that is not redacted (a redacted column beside it differs too): the audit must fail."""
    name = f"rt{n:02d}"
    base = _simple(n, {"v": S}, {"v": {"from": "$.v"}}, ["id", "v", "note", "secret"], [],
                   unmapped=["$.note", "$.secret"], allow=("fail", "error", "skipped"))
    base["entities"][name]["quarantine"] = {"retention": "30d", "redact": ["$.secret"]}
    rows = [("k1", "ok", "first", "s-a", "l1", "2024-03-01 00:00:00", "s1"),
            ("k1", "ok", "second", "s-b", "l1", "2024-03-01 00:00:00", "s1")]
    base["bronze"] = {f"{name}_src": (["id", "v", "note", "secret", *adv.META_COLUMNS], rows)}
    base["check"] = _audit_check(name)
    return base


def c_identity_reuse_merged(n):
    """A merged entity (two bronze relations): one relation delivers one identity twice with other
    content in a mapped column; the other relation carries the same identity, which is not a reuse."""
    name = f"rt{n:02d}"
    ent = entity({"id": S, "v": S})
    a, b = f"{name}_a", f"{name}_b"
    meta = ("l1", "2024-03-01 00:00:00", "s1")
    return dict(entities={name: ent},
                mappings=[mapping(a, name, {"id": {"from": "$.id"}}, {"v": {"from": "$.v"}}),
                          mapping(b, name, {"id": {"from": "$.id"}}, {"v": {"from": "$.v"}})],
                bronze={a: (["id", "v", *adv.META_COLUMNS], [("k1", "one", *meta), ("k1", "two", *meta)]),
                        b: (["id", "v", *adv.META_COLUMNS], [("k2", "three", *meta)])},
                allow=("fail", "error", "skipped"), check=_audit_check(name))


# -- the terminal ---------------------------------------------------------------------------------------------
CONTROL_VALUE = "\u202eevil\u2028line\rCR\x9b31mC1\x1b]0;t\x07end"


def c_bidi_in_an_engine_message(n):
    """A hard cast (no quality) stops its model on a value holding a bidi override, a line
    separator, CR and C1 controls; `bloomery summary` quotes dbt's message: inert, JSON exact."""
    name = f"rt{n:02d}"
    return dict(entities={name: entity({"id": S, "v": {"type": "int"}}, quarantine=False, dedupe=False)},
                mappings=[{"source": f"{name}_src", "target": name, "key": {"id": {"from": "$.id"}},
                           "fields": {"v": {"from": "$.v"}}}],
                bronze={f"{name}_src": (["id", "v"], [("k1", CONTROL_VALUE)])}, allow=("error",), must_build=True)


NAMED = {
    "key-column-reads-reserved-bronze": c_key_column_reads_reserved,
    "unmapped-deep-path-under-reserved": c_deep_path_under_reserved_unmapped,
    "field-named-delivered-key": _field("_bloomery_delivered__id", must_refuse=True),
    "field-named-delivered-key-upper": _field("_BLOOMERY_DELIVERED__ID", must_refuse=True),
    "field-named-delivered-key-of-v": _field("_bloomery_delivered__v", must_refuse=True),
    "field-named-cast-failed-marker": _field("_bloomery_cast_failed__v", must_refuse=True),
    "field-named-content-digest": _field("_Bloomery_Content", must_refuse=True),
    "tie-break-reserved-upper": c_tie_break_reserved_upper,
    "partition-by-reserved": c_partition_by_reserved,
    "field-fullwidth-lookalike": c_fullwidth_lookalike,
    "bronze-upper-case-of-sibling-reject": c_source_upper_case_of_sibling_reject,
    "entity-named-like-sibling-staged-rest": c_entity_named_like_sibling_staged_rest,
    "expression-literal-backslash": c_expr_literal_backslash,
    "accepted-values-quote-zero": _accepted_values_quote(0),
    "accepted-values-quote-null": _accepted_values_quote(None),
    "accepted-values-quote-empty-list": _accepted_values_quote([]),
    "test-config-nested-config-where": c_nested_config_where,
    "test-store-failures-onto-bronze": c_store_failures_onto_bronze,
    "expression-unicode-names": c_expr_unicode_names,
    "expression-literal-quotes-dollars-comments": c_expr_literal_quotes_and_dollars,
    "expression-600-terms": c_expr_very_long,
    **CASES_CAST,
    "identity-reuse-unmapped-column": c_identity_reuse_unmapped_column,
    "identity-reuse-merged-entity": c_identity_reuse_merged,
    "bidi-and-c1-in-an-engine-message": c_bidi_in_an_engine_message,
}


def make_cases() -> list[Case]:
    return [Case(id=cid, n=BASE + i, **make(BASE + i)) for i, (cid, make) in enumerate(NAMED.items())]


# a blocking audit that fails (or a node in error) skips the quality mart, which `summary` reads:
# these build apart (together, in one second project per engine)
APART = ("identity-reuse-unmapped-column", "identity-reuse-merged-entity", "entity-named-like-sibling-staged-rest",
         "test-store-failures-onto-bronze")


CASES = make_cases()
BY_ID = {c.id: c for c in CASES}

# The dbt docs' own override: a custom schema is used as it is (so `schema: main` is `main`)
OVERRIDE = """{% macro generate_schema_name(custom_schema_name, node) -%}
    {%- if custom_schema_name is none -%}{{ target.schema }}{%- else -%}{{ custom_schema_name | trim }}{%- endif -%}
{%- endmacro %}
"""


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("adv_fixes_specs")
    return {c.id: adv.judge_spec(c, tmp) for c in CASES}


@pytest.fixture(scope="module", params=ENGINES)
def outcomes(request, tmp_path_factory, verdicts):
    engine = request.param
    counter = iter(range(1000))

    def make():
        project = engine_project(engine, tmp_path_factory.mktemp(f"adv_fixes_{engine}_{next(counter)}"), request)
        (project.dir / "macros" / "rt_schema_override.sql").write_text(OVERRIDE)
        return project
    out = adv.build_cases(make, [c for c in CASES if c.id not in APART], verdicts)
    out.update(adv.build_cases(make, [c for c in CASES if c.id in APART], verdicts))
    return out


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_fix_holds(case, verdicts, outcomes):
    adv.judge(case, verdicts[case.id], outcomes.get(case.id))


# -- terminal promises of the text writers (no build) ------------------------------------------------------------
# "Text output is inert" (docs/cli.md): besides adversarial.CONTROL, tab/CR inside a value, the
# Unicode line separators and the bidi overrides are escaped too
INERT = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def assert_inert(text: str, what: str):
    found = sorted({repr(c) for c in INERT.findall(text)})
    assert not found, f"{what}: raw control characters {found} in the terminal text:\n{text[:2000]!r}"


def _bad_tree(n: int) -> dict:
    """A spec tree with one refusal in its mapping (an unknown transform)."""
    case = Case(id="t", n=n, **_simple(n, {"v": S}, {"v": {"from": "$.v", "transform": ["no_such_step"]}},
                                       ["id", "v"], []))
    return case.files()


HOSTILE_FILE_NAMES = {
    "spec-file-name-escape": "mapping\x1b[2J\x1b]0;pwned\x07.yaml",
    "spec-file-name-bidi": "mapping_\u202egpj.yaml",
    "spec-file-name-line-separator": "mapping\u2028ok: 0 errors.yaml",
}


@pytest.mark.parametrize("fname", HOSTILE_FILE_NAMES.values(), ids=list(HOSTILE_FILE_NAMES))
def test_a_spec_file_name_is_inert(fname, tmp_path):
    files = _bad_tree(BASE + 90)
    docs = {("entity_model.yaml" if k == "entity_model.yaml" else fname): v for k, v in files.items()}
    specs = adv.write_tree(docs, tmp_path / "specs")
    for cmd in (("check", "--specs", str(specs)), ("compile", "--specs", str(specs), "--out", str(tmp_path / "out"))):
        code, text = adv.cli(*cmd)
        assert code == 1, text
        assert "Traceback" not in text, text
        assert_inert(text, f"bloomery {cmd[0]}")


def test_a_spec_folder_name_is_inert(tmp_path):
    specs = adv.write_tree(_bad_tree(BASE + 91), tmp_path / "specs\u202e\x1b[31m\u2029x")
    code, text = adv.cli("check", "--specs", str(specs))
    assert code == 1, text
    assert_inert(text, "bloomery check")


def test_plan_text_is_inert(tmp_path):
    """`bloomery plan` names added and removed fields; a field name may hold a bidi override and a
    line separator (the compiler refuses C0 controls in names, not these), and plan's text must not
    carry them raw."""
    n = BASE + 92
    old = Case(id="o", n=n, **_simple(n, {"v": S}, {"v": {"from": "$.v"}}, ["id", "v"], []))
    hostile = "w\u202ex\u2028y\u2066z"
    new = Case(id="n", n=n, **_simple(n, {"v": S, hostile: S}, {"v": {"from": "$.v"}, hostile: {"from": "$.w"}},
                                      ["id", "v", "w"], []))
    o = adv.write_tree(old.files(), tmp_path / "old")
    w = adv.write_tree(new.files(), tmp_path / "new")
    code, text = adv.cli("plan", "--old", str(o), "--new", str(w))
    assert code in (0, 3), text
    assert "Traceback" not in text
    assert_inert(text, "bloomery plan")
    code, js = adv.cli("plan", "--old", str(o), "--new", str(w), "--format", "json")
    assert hostile in json.dumps(json.loads(js), ensure_ascii=False), "plan JSON does not hold the name exactly"


def test_summary_quotes_a_bronze_value_inertly(verdicts, outcomes):
    case = BY_ID["bidi-and-c1-in-an-engine-message"]
    adv.judge(case, verdicts[case.id], outcomes.get(case.id))
    o = outcomes[case.id]
    assert f"rt{case.n:02d}" in o.summary_text, o.summary_text
    assert_inert(o.summary_text, "bloomery summary")
    data = json.loads(o.summary_json)
    assert CONTROL_VALUE.split("\r")[0] in json.dumps(data, ensure_ascii=False), \
        "the JSON summary does not hold the engine's message exactly"
