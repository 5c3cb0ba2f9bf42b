"""`parse_decimal` on the engines: every spelling of decimal_spellings.py through the macro a
generated model calls (`bloomery.transform_step`), in its NULL-on-failure form (a quality entity)
and its produce-or-raise form (outside the quality system); then built for real from a spec,
where a value that does not match the format is a coercion failure that the column's `coercible`
rule disposes of, exactly like a failed cast. DuckDB, PostgreSQL, and Spark with `-m spark`."""
from __future__ import annotations

from decimal import Decimal

import pytest

from bloomery.emit.jinja_literal import literal
from bloomery.transforms.chain import lower_chain
from bloomery.transforms.types import parse_type

from .decimal_spellings import CASES, FORMATS, TYPE, mapping, model, spec_step
from .harness import ENGINES, SPARK, cases_table, engine_error, engine_project, load_logs, render, specs_folder

NULL_ROWS = [(fmt, None) for fmt in FORMATS]                 # NULL is no failure: it stays NULL
ROWS = [(str(i), fmt, text) for i, (fmt, text) in enumerate([(f, t) for f, t, _ in CASES] + NULL_ROWS)]
EXPECTED = {i: (None if e is None else Decimal(e)) for i, (_, _, e) in enumerate(CASES)}
EXPECTED.update({len(CASES) + j: None for j in range(len(NULL_ROWS))})
ACCEPTED = [i for i, (_, _, e) in enumerate(CASES) if e is not None] + [len(CASES) + j for j in range(len(NULL_ROWS))]
REFUSED = [i for i, (_, _, e) in enumerate(CASES) if e is None]


def _sql(safe: bool) -> str:
    """One select per format over the corpus table, the step as the compiler lowers it."""
    steps, parts = [], []
    for fmt in FORMATS:
        (step,) = lower_chain([spec_step(fmt)], parse_type(TYPE)).steps
        steps.append("{%- set step_" + fmt + " = " + literal(step) + " -%}")
        parts.append("select i, {{ bloomery.transform_step('x', step_" + fmt + ", " + ("true" if safe else "false")
                     + ") }} as v from __cases__ where f = '" + fmt + "'")
    return "\n".join(steps) + "\n" + "\nunion all\n".join(parts)


class Engine:
    def __init__(self, project, table, run):
        self.project, self.run = project, run
        self.safe = render(project, _sql(True)).replace("__cases__", table)
        self.hard = render(project, _sql(False)).replace("__cases__", table)

    def values(self, sql):
        return {int(i): (None if v is None else Decimal(str(v))) for i, v in self.run(sql)}


def _check_safe(engine):
    got = engine.values(engine.safe)
    wrong = {ROWS[i][1:]: (got.get(i), EXPECTED[i]) for i in EXPECTED if got.get(i) != EXPECTED[i]}
    assert not wrong, "(format, text): (got, expected)\n" + "\n".join(f"  {k!r}: {v}" for k, v in wrong.items())


def _check_hard(engine, error):
    wrapped = "select * from (" + engine.hard + ") as q where i in (__ids__)"
    got = engine.values(wrapped.replace("__ids__", ", ".join(f"'{i}'" for i in ACCEPTED)))
    assert got == {i: EXPECTED[i] for i in ACCEPTED}
    for i in REFUSED:
        with pytest.raises(error) as raised:
            engine.run(wrapped.replace("__ids__", f"'{i}'"))
        # the value is named (PostgreSQL: its cast of the message; a value of the right shape that
        # outgrows the type: the engine's own overflow error)
        message = str(raised.value).lower()
        assert any(m in message for m in ("bloomery: value", "overflow", "could not convert")), (ROWS[i], message)


# -- the spellings, on each engine -----------------------------------------------------------------

@pytest.fixture(scope="module", params=ENGINES + [SPARK])
def engine(request, tmp_path_factory):
    if request.param == "spark":
        pytest.importorskip("pyspark")
    tmp = tmp_path_factory.mktemp(f"decimals_{request.param}")
    return Engine(*cases_table(request.param, tmp, request, ["i", "f", "x"], ROWS))


def test_null_on_failure(engine):
    _check_safe(engine)


def test_produce_or_raise(engine):
    _check_hard(engine, engine_error(engine.project.engine))


# -- built from a spec: the coercible rule's disposition applies -----------------------------------

MODEL = model("list_amount")
PRICES = mapping("shop__prices", "price", """\
  amount:
    from: "$.amount"
    transform: [{parse_decimal: {decimal: ",", group: ".", currency: ["€", EUR]}}]
    quality:
      - {rule: range, min: 0, on_fail: flag}
  list_amount:
    from: "$.list"
    transform: [{name: parse_decimal, args: {decimal: ".", group: ",", currency: "$"}}]
    quality:
      - {rule: coercible, on_fail: flag}
unmapped: ["$._load_id", "$._ingested_at", "$._source_row_id"]
""")
TARIFFS = mapping("shop__tariffs", "tariff", """\
  rate: {from: "$.rate", transform: [{parse_decimal: {decimal: ",", group: space}}]}
""")
PRICE_COLUMNS = ["id", "amount", "list", "_load_id", "_ingested_at", "_source_row_id"]
AT = "2024-05-01 10:00:00"
PRICE_ROWS = [
    ("p1", "12,50 €", "$1,234.50", "l1", AT, "r1"),
    ("p2", "EUR 1.234,50", "oops", "l1", AT, "r2"),        # list_amount: coercible at flag -> kept, flagged
    ("p3", "12.50", "$1.00", "l1", AT, "r3"),               # amount: the implicit coercible quarantines
    ("p4", "-3,00 €", "1", "l1", AT, "r4"),                 # parses; the range rule flags it
    ("p5", None, "2", "l1", AT, "r5"),                      # NULL: no failure
    ("p6", "999.999.999.999,00", "3", "l1", AT, "r6"),      # matches the format, outgrows decimal(12,2)
]


@pytest.fixture(params=ENGINES + [SPARK])
def project(request, tmp_path):
    if request.param == "spark":
        pytest.importorskip("pyspark")
    specs = specs_folder(tmp_path, {"model.yaml": MODEL, "prices.yaml": PRICES, "tariffs.yaml": TARIFFS})
    p = engine_project(request.param, tmp_path, request, specs)
    assert p.compile() == 0
    p.write_bronze("shop__prices", PRICE_COLUMNS, PRICE_ROWS)
    return p


def _dec(v):
    return None if v is None else Decimal(str(v))


def test_a_value_off_the_format_is_a_coercion_failure(project):
    project.write_bronze("shop__tariffs", ["id", "rate"], [("t1", "1 234,5"), ("t2", "0,0625")])
    project.dbt("build")
    kept = {r[0]: (_dec(r[1]), _dec(r[2]), sorted(r[3]))
            for r in project.query("select price_id, amount, list_amount, _quality_flags from main.price")}
    assert kept == {
        "p1": (Decimal("12.50"), Decimal("1234.50"), []),
        "p2": (Decimal("1234.50"), None, ["list_amount_coercible"]),
        "p4": (Decimal("-3.00"), Decimal("1.00"), ["amount_range_min"]),
        "p5": (None, Decimal("2.00"), []),
    }
    rejects = {r[0]: sorted(r[1]) for r in project.query("select _source_row_id, failed_rules from main.price__reject")}
    assert rejects == {"r3": ["amount_coercible"], "r6": ["amount_coercible"]}
    # outside the quality system the values parse the same
    assert {r[0]: _dec(r[1]) for r in project.query("select tariff_id, rate from main.tariff")} == {
        "t1": Decimal("1234.5000"), "t2": Decimal("0.0625")}


def test_outside_the_quality_system_a_value_off_the_format_stops_the_run(project):
    project.write_bronze("shop__tariffs", ["id", "rate"], [("t1", "1 234,5"), ("t2", "1.234,5")])
    result = project.dbt("build", check=False)
    assert not result.success
    assert "error" in {s for node, s in result.statuses.items() if node.startswith("tariff")}, result.statuses
    log = load_logs(project)
    assert "bloomery: value 1.234,5 does not match the decimal format of -1 234,50" in log
