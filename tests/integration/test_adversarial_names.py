"""Red team, issue 37: hostile NAMES and pass-through strings, in every identifier position of a spec
and of bronze. Each named case is judged by `adversarial.judge`: a clean located refusal, or a
build on DuckDB and PostgreSQL in which the case's canary survives, its secret does not leak, its
nodes pass, bronze is untouched and every bronze row lands where its verdict says.

The accepted cases of one engine share one dbt build (see adversarial.build_cases); a property
test at the end throws generated names at the compiler (cheap, many examples) and at real builds
(few examples, fixed seed).
"""
from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from . import adversarial as adv
from .adversarial import Case, entity, mapping, rows_with_meta
from .harness import ENGINES, engine_project

pytestmark = pytest.mark.dbt_artifacts   # the manifest is read, and no secret may land in target/ or logs/

S = {"type": "string"}
COLS = ["id", "v", "_load_id", "_ingested_at", "_source_row_id"]


def _simple(n, fields_model, fields_map, columns, rows, quality=None, place=None, unmapped=(), **kw):
    """One entity `rtNN` keyed by `id` over bronze `rtNN_src`."""
    name = f"rt{n:02d}"
    return dict(entities={name: entity({"id": S, **fields_model}, quality=quality)},
                mappings=[mapping(f"{name}_src", name, {"id": {"from": "$.id"}}, fields_map, unmapped)],
                bronze={f"{name}_src": ([*columns, *adv.META_COLUMNS], rows_with_meta(rows))},
                place={name: place} if place else {}, **kw)


def expr_rule(expr, name="rt_expr", on_fail="quarantine"):
    return [{"rule": "expression", "name": name, "expr": expr, "on_fail": on_fail}]


IN_OK = [{"rule": "in_set", "values": ["ok"], "on_fail": "quarantine"}]


def c_field_placeholder_expr(n):
    # a field whose name holds another column's placeholder; the expression reads both
    f = "a__bloomery_col_1__"
    return _simple(n, {f: S, "b": S}, {f: {"from": "$.a"}, "b": {"from": "$.b"}}, ["id", "a", "b"],
                   [("k1", "x", "y"), ("k2", "z", "z")], expr_rule(f"{f} <> b"), {"s1": "keep", "s2": "reject"})


def c_field_placeholder_first_expr(n):
    # the same, read second: the field's name holds the placeholder of the column read first
    f = "a__bloomery_col_0__"
    return _simple(n, {f: S, "b": S}, {f: {"from": "$.a"}, "b": {"from": "$.b"}}, ["id", "a", "b"],
                   [("k1", "x", "y"), ("k2", "z", "z")], expr_rule(f"b <> {f} and {f} <> 'q'"),
                   {"s1": "keep", "s2": "reject"})


def c_field_named_placeholder_expr(n):
    f = "__bloomery_col_1__"
    return _simple(n, {f: S, "b": S}, {f: {"from": "$.a"}, "b": {"from": "$.b"}}, ["id", "a", "b"],
                   [("k1", "x", "y"), ("k2", "z", "z")], expr_rule(f"{f} <> b"), {"s1": "keep", "s2": "reject"})


def c_field_placeholder_mixed_case_expr(n):
    f = "a__BLOOMERY_Col_1__"
    return _simple(n, {f: S, "b": S}, {f: {"from": "$.a"}, "b": {"from": "$.b"}}, ["id", "a", "b"],
                   [("k1", "x", "y"), ("k2", "z", "z")], expr_rule(f"{f} <> b"), {"s1": "keep", "s2": "reject"})


def c_expr_literal_placeholder(n):
    return _simple(n, {"v": S}, {"v": {"from": "$.v"}}, ["id", "v"], [("k1", "ok"), ("k2", "__bloomery_col_0__")],
                   expr_rule("v <> '__bloomery_col_0__'"), {"s1": "keep", "s2": "reject"})


def c_expr_literal_placeholder_mixed(n):
    return _simple(n, {"v": S}, {"v": {"from": "$.v"}}, ["id", "v"], [("k1", "ok"), ("k2", "__BLOOMERY_COL_0__")],
                   expr_rule("v <> '__BLOOMERY_COL_0__'"), {"s1": "keep", "s2": "reject"})


def c_in_set_placeholder(n):
    rule = [{"rule": "in_set", "values": ["ok", "__bloomery_col_0__"], "on_fail": "quarantine"}]
    return _simple(n, {"v": S}, {"v": {"from": "$.v", "quality": rule}}, ["id", "v"],
                   [("k1", "ok"), ("k2", "__bloomery_col_0__"), ("k3", "no")], place={"s1": "keep", "s2": "keep", "s3": "reject"})


def _unmapped_internal(col):
    def make(n):
        # the bronze column is declared `unmapped` (so it lands in the reject row's raw); its values
        # say the opposite of the verdict
        return _simple(n, {"v": S}, {"v": {"from": "$.v", "quality": IN_OK}}, ["id", "v", col],
                       [("k1", "ok", "quarantine"), ("k2", "bad", "keep"), ("k3", "ok", "1"), ("k4", "bad", "0")],
                       place={"s1": "keep", "s2": "reject", "s3": "keep", "s4": "reject"}, unmapped=[f"$.{col}"])
    return make


def c_undeclared_internal_columns(n):
    # bronze carries columns the spec never names, called like the pipeline's own
    extra = ["_bloomery_route", "_bloomery_winner", "_bloomery_rank", "_bloomery_raw", "_bloomery_source",
             "__bloomery_col_0__", "reject_id", "failed_rules", "raw", "resolved_at"]
    rows = [("k1", "ok", *(["quarantine", "k9", "2", "{}", "x", "bad", "r", "{x}", "{}", "2024-01-01"])),
            ("k2", "bad", *(["keep", None, "1", "{}", "y", "ok", "r", "{}", "{}", "2024-01-01"]))]
    return _simple(n, {"v": S}, {"v": {"from": "$.v", "quality": IN_OK}}, ["id", "v", *extra], rows,
                   place={"s1": "keep", "s2": "reject"})


def c_unmapped_reject_columns(n):
    cols = ["reject_id", "failed_rules", "raw", "resolved_at", "key_values", "first_seen", "source_relation"]
    rows = [("k1", "ok", *["x"] * len(cols)), ("k2", "bad", *["2024-01-01"] * len(cols))]
    return _simple(n, {"v": S}, {"v": {"from": "$.v", "quality": IN_OK}}, ["id", "v", *cols], rows,
                   place={"s1": "keep", "s2": "reject"}, unmapped=[f"$.{c}" for c in cols])


def c_field_named_internal(n):
    fm = {"_bloomery_route": S, "_bloomery_winner": S}
    return _simple(n, {"v": S, **fm}, {"v": {"from": "$.v", "quality": IN_OK},
                                       "_bloomery_route": {"from": "$.r"}, "_bloomery_winner": {"from": "$.w"}},
                   ["id", "v", "r", "w"], [("k1", "ok", "quarantine", "x"), ("k2", "bad", "keep", None)],
                   place={"s1": "keep", "s2": "reject"})


def c_field_named_reject_columns(n):
    names = ["raw", "failed_rules", "reject_id", "key_values", "resolved_at", "mapping"]
    return _simple(n, {"v": S, **{c: S for c in names}},
                   {"v": {"from": "$.v", "quality": IN_OK}, **{c: {"from": f"$.c_{c}"} for c in names}},
                   ["id", "v", *[f"c_{c}" for c in names]],
                   [("k1", "ok", *["x"] * len(names)), ("k2", "bad", *["2024-01-01"] * len(names))],
                   place={"s1": "keep", "s2": "reject"})


def c_entity_named_like_its_bronze(n):
    name = f"rt{n:02d}"
    return dict(entities={name: entity({"id": S, "v": S})},
                mappings=[mapping(name, name, {"id": {"from": "$.id"}}, {"v": {"from": "$.v", "quality": IN_OK}})],
                bronze={name: ([*COLS[:2], *adv.META_COLUMNS], rows_with_meta([("k1", "ok"), ("k2", "bad")]))},
                place={name: {"s1": "keep", "s2": "reject"}})


def c_source_named_like_a_generated_relation(n):
    # the bronze relation of one entity is named like another entity's ledger
    a, b = f"rt{n:02d}", f"rt{n:02d}_b"
    return dict(entities={a: entity({"id": S, "v": S}), b: entity({"id": S, "v": S})},
                mappings=[mapping(f"{a}_src", a, {"id": {"from": "$.id"}}, {"v": {"from": "$.v", "quality": IN_OK}}),
                          mapping(f"{a}__ledger", b, {"id": {"from": "$.id"}}, {"v": {"from": "$.v", "quality": IN_OK}})],
                bronze={f"{a}_src": ([*COLS[:2], *adv.META_COLUMNS], rows_with_meta([("k1", "ok")])),
                        f"{a}__ledger": ([*COLS[:2], *adv.META_COLUMNS], rows_with_meta([("k1", "ok"), ("k2", "bad")], prefix="b"))},
                place={a: {"s1": "keep"}, b: {"b1": "keep", "b2": "reject"}})


def c_source_named_like_the_quality_mart(n):
    name = f"rt{n:02d}"
    return dict(entities={name: entity({"id": S, "v": S})},
                mappings=[mapping("mart_data_quality", name, {"id": {"from": "$.id"}}, {"v": {"from": "$.v", "quality": IN_OK}})],
                bronze={"mart_data_quality": ([*COLS[:2], *adv.META_COLUMNS], rows_with_meta([("k1", "ok"), ("k2", "bad")]))},
                place={name: {"s1": "keep", "s2": "reject"}}, solo=True)


def c_entity_name_61_chars(n):
    # PostgreSQL cuts identifiers at 63 bytes: `<61 chars>__reject` and `<61 chars>__ledger` are one name there
    name = f"rt{n:02d}" + "x" * 57
    return dict(entities={name: entity({"id": S, "v": S})},
                mappings=[mapping(f"rt{n:02d}_src", name, {"id": {"from": "$.id"}}, {"v": {"from": "$.v", "quality": IN_OK}})],
                bronze={f"rt{n:02d}_src": ([*COLS[:2], *adv.META_COLUMNS], rows_with_meta([("k1", "ok"), ("k2", "bad")]))},
                place={name: {"s1": "keep", "s2": "reject"}})


def c_source_name_70_chars(n):
    name, src = f"rt{n:02d}", f"rt{n:02d}_" + "s" * 66
    return dict(entities={name: entity({"id": S, "v": S})},
                mappings=[mapping(src, name, {"id": {"from": "$.id"}}, {"v": {"from": "$.v", "quality": IN_OK}})],
                bronze={src: ([*COLS[:2], *adv.META_COLUMNS], rows_with_meta([("k1", "ok"), ("k2", "bad")]))},
                place={name: {"s1": "keep", "s2": "reject"}})


def _field_name(fname, **kw):
    def make(n):
        return _simple(n, {fname: S, "v": S}, {fname: {"from": "$.f"}, "v": {"from": "$.v", "quality": IN_OK}},
                       ["id", "f", "v"], [("k1", "val", "ok"), ("k2", "val", "bad")],
                       place={"s1": "keep", "s2": "reject"}, **kw)
    return make


def c_field_name_300_chars(n):
    return _field_name("f" * 300)(n)


def _description_case(where):
    def make(n):
        t = adv.tokens(n)
        payload = f"{t['jinja_comment']} {t['endraw']} {t['jinja_stmt']} {t['squote']}"
        base = _simple(n, {"v": S}, {"v": {"from": "$.v", "quality": IN_OK}}, ["id", "v"],
                       [("k1", "ok"), ("k2", "bad")], place={"s1": "keep", "s2": "reject"})
        ent = base["entities"][f"rt{n:02d}"]
        if where == "entity description":
            ent["description"] = payload
        elif where == "field description":
            ent["fields"]["v"] = {"type": "string", "description": payload}
        elif where == "grain":
            ent["grain"] = payload
        elif where == "meta":
            ent["meta"] = {"why": payload}

        def check(project, case, result):
            manifest = json.loads((project.dir / "target" / "manifest.json").read_text())
            node = next(x for x in manifest["nodes"].values() if x["resource_type"] == "model" and x["name"] == f"rt{n:02d}")
            text = json.dumps(node)
            assert json.dumps(payload)[1:-1] in text, f"the {where} did not reach the docs exactly as written"
        base["check"] = check
        return base
    return make


def _test_passthrough(config=None, args=None, test="not_null"):
    """A user's own dbt test on a field; `config`/`args` may carry SQL aimed at a sequence canary."""
    def make(n):
        seq = f"main.rt_seq_{n:02d}"
        fmt = {"seq": seq, "var": adv.secret_var(n)}
        body = {}
        if config:
            body["config"] = {k: v.format(**fmt) for k, v in config.items()}
        if args:
            body.update({k: [x.format(**fmt) for x in v] if isinstance(v, list) else v.format(**fmt) for k, v in args.items()})
        base = _simple(n, {"v": S}, {"v": {"from": "$.v", "quality": IN_OK}}, ["id", "v"],
                       [("k1", "ok"), ("k2", "bad")], place={"s1": "keep", "s2": "reject"}, allow=("warn", "fail"))
        name = test.replace("VAR", fmt["var"])
        base["entities"][f"rt{n:02d}"]["fields"]["v"] = {"type": "string", "data_tests": [{name: body}]}
        base["setup"] = (f"create sequence {seq} start 1",)

        def check(project, case, result):
            assert project.query(f"select nextval('{seq}')") == [(1,)], \
                "SQL from the spec's test pass-through ran: the canary sequence advanced"
        base["check"] = check
        return base
    return make


def c_assert_regex(regex):
    def make(n):
        base = _simple(n, {"v": S}, {"v": {"from": "$.v", "quality": IN_OK}}, ["id", "v"],
                       [("k1", "ok"), ("k2", "bad")], place={"s1": "keep", "s2": "reject"}, allow=("warn",))
        base["entities"][f"rt{n:02d}"]["fields"]["v"] = {"type": "string", "assert": {"regex": regex}}
        return base
    return make


def c_expr_bare_boolean(n):
    return _simple(n, {"active": {"type": "bool"}}, {"active": {"from": "$.a"}}, ["id", "a"],
                   [("k1", "true"), ("k2", "false")], expr_rule("active"), {"s1": "keep", "s2": "reject"})


def c_expr_reads_unprovided_field(n):
    base = _simple(n, {"v": S, "ghost": S}, {"v": {"from": "$.v"}}, ["id", "v"], [("k1", "ok"), ("k2", "x")],
                   expr_rule("ghost is null"), {"s1": "keep", "s2": "keep"}, must_refuse=True)
    return base


def c_range_bound_statement(n):
    rule = [{"rule": "range", "min": f"0'; drop table main.canary_{n:02d}; --", "on_fail": "quarantine"}]
    return _simple(n, {"v": {"type": "int"}}, {"v": {"from": "$.v", "quality": rule}}, ["id", "v"],
                   [("k1", "1")], place={"s1": "keep"})


NAMED = {
    "field-name-holds-placeholder-expression": c_field_placeholder_expr,
    "field-name-holds-placeholder-read-second": c_field_placeholder_first_expr,
    "field-named-placeholder-expression": c_field_named_placeholder_expr,
    "field-name-placeholder-mixed-case-expression": c_field_placeholder_mixed_case_expr,
    "expression-literal-placeholder": c_expr_literal_placeholder,
    "expression-literal-placeholder-mixed-case": c_expr_literal_placeholder_mixed,
    "in-set-value-placeholder": c_in_set_placeholder,
    "unmapped-bronze-_bloomery_route": _unmapped_internal("_bloomery_route"),
    "unmapped-bronze-_BLOOMERY_ROUTE": _unmapped_internal("_BLOOMERY_ROUTE"),
    "unmapped-bronze-_Bloomery_Route": _unmapped_internal("_Bloomery_Route"),
    "unmapped-bronze-_bloomery_winner": _unmapped_internal("_bloomery_winner"),
    "unmapped-bronze-_bloomery_raw": _unmapped_internal("_bloomery_raw"),
    "unmapped-bronze-_bloomery_rank": _unmapped_internal("_bloomery_rank"),
    "unmapped-bronze-_bloomery_source": _unmapped_internal("_bloomery_source"),
    "unmapped-bronze-_bloomery_outcome": _unmapped_internal("_bloomery_outcome"),
    "unmapped-bronze-__bloomery_col_0__": _unmapped_internal("__bloomery_col_0__"),
    "undeclared-bronze-internal-columns": c_undeclared_internal_columns,
    "unmapped-bronze-reject-columns": c_unmapped_reject_columns,
    "field-named-internal-columns": c_field_named_internal,
    "field-named-reject-columns": c_field_named_reject_columns,
    "entity-named-like-its-bronze": c_entity_named_like_its_bronze,
    "source-named-like-a-ledger": c_source_named_like_a_generated_relation,
    "source-named-like-the-quality-mart": c_source_named_like_the_quality_mart,
    "entity-name-61-chars": c_entity_name_61_chars,
    "source-name-70-chars": c_source_name_70_chars,
    "field-name-300-chars": c_field_name_300_chars,
    "field-name-unicode": _field_name("naïve_数据_😀"),
    "field-name-backslash": _field_name("a\\b"),
    "field-name-jinja-comment": _field_name("a{#b#}c"),
    "field-name-endraw": _field_name("a{% endraw %}b"),
    "field-name-control": _field_name("a\x1b[31mb"),
    "entity-description-jinja": _description_case("entity description"),
    "field-description-jinja": _description_case("field description"),
    "grain-jinja": _description_case("grain"),
    "meta-jinja": _description_case("meta"),
    "test-config-where": _test_passthrough(config={"where": "nextval('{seq}') > 0"}),
    "test-config-fail-calc": _test_passthrough(config={"fail_calc": "count(*) * 0 + nextval('{seq}') * 0"}),
    "test-config-error-if": _test_passthrough(config={"error_if": "> nextval('{seq}') * 1000"}),
    "test-config-warn-if": _test_passthrough(config={"warn_if": "> nextval('{seq}') * 1000"}),
    "test-args-accepted-values-jinja": _test_passthrough(
        args={"values": ["ok", "bad", "{{{{ env_var('{var}') }}}}", "x'); select nextval('{seq}'); --"]}, test="accepted_values"),
    "test-name-jinja": _test_passthrough(test="not_null{{ env_var('VAR') }}"),
    "assert-regex-backreference": c_assert_regex("^(a)\\1$"),
    "assert-regex-lookahead": c_assert_regex("^(?=o)[a-z]+$"),
    "assert-regex-possessive": c_assert_regex("^a++$"),
    "expression-bare-boolean-column": c_expr_bare_boolean,
    "expression-reads-unprovided-field": c_expr_reads_unprovided_field,
    "range-bound-statement": c_range_bound_statement,
}


def make_cases() -> list[Case]:
    return [Case(id=cid, n=i + 1, **make(i + 1)) for i, (cid, make) in enumerate(NAMED.items())]


CASES = make_cases()


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("adv_names_specs")
    return {c.id: adv.judge_spec(c, tmp) for c in CASES}


@pytest.fixture(scope="module", params=ENGINES)
def outcomes(request, tmp_path_factory, verdicts):
    engine = request.param
    counter = iter(range(1000))
    return adv.build_cases(lambda: engine_project(engine, tmp_path_factory.mktemp(f"adv_names_{engine}_{next(counter)}"), request),
                           CASES, verdicts)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_hostile_name(case, verdicts, outcomes):
    adv.judge(case, verdicts[case.id], outcomes.get(case.id))


# -- properties ----------------------------------------------------------------------------------------
SENTINEL = ["{{ rt_sentinel }}", "{% set rt_sentinel = 1 %}", "{{ rt_sentinel() }}"]
hostile_text = st.lists(st.sampled_from(adv.ATOMS + SENTINEL + ["a", "b", "_"]), min_size=1, max_size=8).map("".join)


def _jinja_names(text: str) -> set[str]:
    """The names Jinja would evaluate in `text` (as dbt renders it)."""
    import jinja2
    env = jinja2.Environment(extensions=["jinja2.ext.do"])
    try:
        return {tok[2] for tok in env.lex(text) if tok[1] == "name"}
    except jinja2.TemplateSyntaxError:
        return {"<not a template>"}


POSITIONS = ["field name", "bronze relation", "entity description", "field description", "grain", "meta value",
             "in_set value", "enum_map value", "expression literal", "test argument", "rule name", "tag"]


def _tree_for(position: str, payload: str) -> dict:
    make = _simple(1, {"v": S, "w": S}, {"v": {"from": "$.v", "quality": [
        {"rule": "in_set", "values": ["ok"], "on_fail": "quarantine"}]},
        "w": {"from": "$.w", "transform": [{"enum_map": ["a", "A"]}], "quality": [{"rule": "in_enum", "on_fail": "flag"}]}},
        ["id", "v", "w"], [], expr_rule("v <> 'zz'"))
    case = Case(id="p", n=1, **make)
    ent = case.entities["rt01"]
    fields = case.mappings[0]["fields"]
    if position == "field name":
        ent["fields"][payload] = S
        fields[payload] = {"from": "$.x"}
    elif position == "bronze relation":
        case.mappings[0]["source"] = payload
    elif position == "entity description":
        ent["description"] = payload
    elif position == "field description":
        ent["fields"]["v"] = {"type": "string", "description": payload}
    elif position == "grain":
        ent["grain"] = payload
    elif position == "meta value":
        ent["meta"] = {"k": payload}
    elif position == "in_set value":
        fields["v"]["quality"][0]["values"].append(payload)
    elif position == "enum_map value":
        fields["w"]["transform"] = [{"enum_map": ["a", "A", payload, payload]}]
    elif position == "expression literal":
        ent["quality"][0]["expr"] = "v <> '" + payload.replace("'", "''") + "'"
    elif position == "test argument":
        ent["fields"]["w"] = {"type": "string", "data_tests": [{"accepted_values": {"values": ["A", payload]}}]}
    elif position == "rule name":
        ent["quality"][0]["name"] = payload
    elif position == "tag":
        ent["tags"] = [payload]
    return case.files()


@settings(max_examples=120, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(position=st.sampled_from(POSITIONS), payload=hostile_text)
def test_compile_never_turns_a_spec_string_into_code(position, payload, tmp_path_factory):
    """Any hostile string in any position: a clean located refusal, or compiled files in which Jinja
    evaluates no name the string brought (dbt renders every generated .sql and .yml as Jinja)."""
    tmp = tmp_path_factory.mktemp("prop")
    specs = adv.write_tree(_tree_for(position, payload), tmp / "specs")
    code, text = adv.cli("check", "--specs", str(specs))
    if code != 0:
        adv.assert_clean_refusal(code, text)
        return
    code, text = adv.cli("compile", "--specs", str(specs), "--out", str(tmp / "out"))
    assert code == 0, text
    for path in (tmp / "out").rglob("*"):
        if path.suffix in (".sql", ".yml"):
            names = _jinja_names(path.read_text())
            assert "rt_sentinel" not in names and "<not a template>" not in names, (path.name, payload)
