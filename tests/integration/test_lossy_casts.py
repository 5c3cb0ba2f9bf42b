"""No lossy cast without a trace (issue 37), built for real on DuckDB and PostgreSQL.

`coercible` is judged at each cast, on every chain: a value that reaches a cast non-NULL and
leaves it NULL fires it, whatever nulling step came before (that step's own NULLs stay silent),
and an explicit `coercible` on such a chain is accepted. A numeric cast that would lose digits (a
fraction into an int, more fractional digits than the scale) is a coercion failure, unless the
step opts into rounding (`rounding: half_away_from_zero`), which rounds a half away from zero on
every engine. Key columns, which take no `quality:`, are judged the same way."""
from __future__ import annotations

from decimal import Decimal

import pytest

from .harness import ENGINES, engine_project, specs_folder

COLUMNS = ["id", "qty", "score", "amount", "amount_r", "units", "units_r", "whole", "price",
           "_load_id", "_ingested_at", "_source_row_id"]
AT = "2024-05-01 10:00:00"
CLEAN = {"id": None, "qty": "5", "score": "1", "amount": "1.0", "amount_r": "1", "units": "1", "units_r": "1",
         "whole": "1", "price": "1,00"}


def row(sid: str, id_: str, **values) -> tuple:
    cells = {**CLEAN, "id": id_, **values}
    return (*(cells[c] for c in COLUMNS[:9]), "l1", AT, sid)


def _d(v):
    return None if v is None else Decimal(str(v))


def _build(request, tmp_path_factory, name, files, bronze, *args):
    tmp = tmp_path_factory.mktemp(f"{name}_{request.param}")
    project = engine_project(request.param, tmp, request, specs_folder(tmp, files))
    assert project.compile() == 0
    for table, (columns, rows) in bronze.items():
        project.write_bronze(table, columns, rows)
    project.dbt("build", *args)
    return project


# -- the three findings, in v1 spellings ------------------------------------------------------------

FINDINGS_MODEL = """\
spec_version: 1
entities:
  reading:
    grain: one row per reading
    key: [reading_id]
    fields:
      reading_id: {type: string}
      qty: {type: int}
      amount: {type: "decimal(8,1)"}
      units: {type: int}
      whole: {type: int}
      price: {type: "decimal(12,2)"}
    quarantine: {retention: 30d}
"""

FINDINGS = """\
mapping_version: 1
source: meter__readings
target: reading
key: {reading_id: {from: "$.id"}}
fields:
  qty: {from: "$.qty", transform: [{nullif: ""}, to_int]}
  amount: {from: "$.amount", transform: [{to_decimal: [8, 1]}]}
  units: {from: "$.units", transform: [to_int]}
  whole: {from: "$.whole", transform: [{to_decimal: [8, 2]}, to_int]}
  price: {from: "$.price", transform: [{parse_decimal: {decimal: ","}}]}
unmapped: ["$.score", "$.amount_r", "$.units_r", "$._load_id", "$._ingested_at", "$._source_row_id"]
"""

FINDING_ROWS = [
    # a nulling step's own NULL stays silent; trailing zeros and exponents lose nothing
    row("r1", "1", qty="", amount="12.70", units="12.0", whole="3.00", price="12,50"),
    row("r2", "2", qty="abc"),                         # finding 1: a value the cast after `nullif` cannot take
    row("r3", "3", amount="2.962"),                    # finding 2: was published as 3.0
    row("r4", "4", units="12.7"),                      # finding 3: was published as 13 on DuckDB
    row("r6", "6", whole="2.50"),                      # a decimal into an int, judged at the second cast
    row("r8", "8", amount="1.25e1", units="1e3", price="-0,5"),
    row("r9", "9", amount="1.25e-1"),                  # an exponent that leaves a digit past the scale
    row("r10", "10", amount="0." + "0" * 42 + "1"),    # a digit past anything a decimal(38,s) reads
    row("r11", "11", price="0,005"),                   # parse_decimal rounds no more than a cast
    row("r12", "12", amount=" 7.50 ", units=" 42 "),
]


@pytest.fixture(scope="module", params=ENGINES)
def findings(request, tmp_path_factory):
    return _build(request, tmp_path_factory, "findings", {"model.yaml": FINDINGS_MODEL, "readings.yaml": FINDINGS},
                  {"meter__readings": (COLUMNS, FINDING_ROWS)})


def _rejected(project, entity="reading"):
    return {r[0]: sorted(r[1]) for r in project.query(f"select _source_row_id, failed_rules from main.{entity}__reject")}


def test_a_value_the_cast_after_a_nulling_step_cannot_take_is_a_coercion_failure(findings):
    assert _rejected(findings).get("r2") == ["qty_coercible"]
    kept = dict(findings.query("select _source_row_id, qty from main.reading"))
    assert kept["r1"] is None and "r2" not in kept        # `""` nulled on purpose: kept, silent


def test_a_decimal_with_more_fractional_digits_than_the_scale_is_a_coercion_failure(findings):
    rejected = _rejected(findings)
    assert {sid: rejected.get(sid) for sid in ("r3", "r9", "r10")} == {sid: ["amount_coercible"] for sid in ("r3", "r9", "r10")}
    assert rejected.get("r11") == ["price_coercible"]
    kept = {r[0]: (_d(r[1]), _d(r[2])) for r in findings.query("select _source_row_id, amount, price from main.reading")}
    assert {sid: kept.get(sid) for sid in ("r1", "r8", "r12")} == {
        "r1": (Decimal("12.7"), Decimal("12.50")), "r8": (Decimal("12.5"), Decimal("-0.50")),
        "r12": (Decimal("7.5"), Decimal("1.00"))}


def test_a_fraction_into_an_int_is_a_coercion_failure(findings):
    rejected = _rejected(findings)
    assert (rejected.get("r4"), rejected.get("r6")) == (["units_coercible"], ["whole_coercible"])
    kept = {r[0]: (r[1], r[2]) for r in findings.query("select _source_row_id, units, whole from main.reading")}
    assert {sid: kept.get(sid) for sid in ("r1", "r8", "r12")} == {"r1": (12, 3), "r8": (1000, 1), "r12": (42, 1)}


def test_nothing_else_is_diverted(findings):
    assert set(_rejected(findings)) == {"r2", "r3", "r4", "r6", "r9", "r10", "r11"}
    assert all(not flags for (flags,) in findings.query("select _quality_flags from main.reading"))


# -- the rounding opt-in, an explicit coercible on a nulling chain, key columns, outside quality -----

MODEL = """\
spec_version: 1
entities:
  reading:
    grain: one row per reading
    key: [reading_id]
    fields:
      reading_id: {type: int}
      score: {type: int}
      amount_r: {type: "decimal(8,1)"}
      units_r: {type: int}
      price: {type: "decimal(12,2)"}
    quarantine: {retention: 30d}
  tariff:
    grain: one row per tariff
    key: [tariff_id]
    fields: {tariff_id: {type: string}, rate: {type: "decimal(8,1)"}, steps: {type: int}}
"""

READINGS = """\
mapping_version: 1
source: meter__readings
target: reading
key:
  reading_id: {from: "$.id", transform: [{nullif: "none"}, to_int]}
fields:
  score:
    from: "$.score"
    transform: [{nullif: "n/a"}, to_int]
    quality:
      - {rule: coercible, on_fail: flag}
  amount_r: {from: "$.amount_r", transform: [{to_decimal: [8, 1], rounding: half_away_from_zero}]}
  units_r: {from: "$.units_r", transform: [{name: to_int, rounding: half_away_from_zero}]}
  price: {from: "$.price", transform: [{parse_decimal: {decimal: ","}, rounding: half_away_from_zero}]}
unmapped: ["$.qty", "$.amount", "$.units", "$.whole", "$._load_id", "$._ingested_at", "$._source_row_id"]
"""

TARIFFS = """\
mapping_version: 1
source: meter__tariffs
target: tariff
key: {tariff_id: {from: "$.id"}}
fields:
  rate: {from: "$.rate", transform: [{to_decimal: [8, 1]}]}
  steps: {from: "$.steps"}
unmapped: []
"""

ROWS = [
    row("r1", "1", score="n/a", amount_r="2.25", units_r="12.5", price="0,005"),
    row("r5", "5", score="abc"),                       # the explicit coercible on a nulling chain: flag
    row("r7", "7.5"),                                  # a key column: its implicit coercible
    row("r8", "8", amount_r="-2.25", units_r="-12.5", price="-0,005"),
    row("r12", "12", amount_r="0.05", units_r="0.5", price="2,345"),
    row("r13", "13", amount_r="2.962", units_r="1.25e1", price="9,994"),
]
TARIFF_COLUMNS = ["id", "rate", "steps"]


@pytest.fixture(scope="module", params=ENGINES)
def built(request, tmp_path_factory):
    return _build(request, tmp_path_factory, "rounding", {"model.yaml": MODEL, "readings.yaml": READINGS,
                                                           "tariffs.yaml": TARIFFS},
                  {"meter__readings": (COLUMNS, ROWS),
                   "meter__tariffs": (TARIFF_COLUMNS, [("t1", "12.70", "12.0"), ("t2", "1.25e1", "3")])})


def test_a_key_column_and_an_explicit_coercible_on_a_nulling_chain(built):
    assert _rejected(built) == {"r7": ["reading_id_coercible"]}
    kept = {r[0]: (r[1], r[2], sorted(r[3])) for r in built.query(
        "select _source_row_id, reading_id, score, _quality_flags from main.reading")}
    assert kept == {"r1": (1, None, []), "r5": (5, None, ["score_coercible"]), "r8": (8, 1, []),
                    "r12": (12, 1, []), "r13": (13, 1, [])}


def test_a_step_that_opts_in_rounds_a_half_away_from_zero(built):
    kept = {r[0]: (_d(r[1]), r[2], _d(r[3])) for r in built.query(
        "select _source_row_id, amount_r, units_r, price from main.reading")}
    assert kept == {
        "r1": (Decimal("2.3"), 13, Decimal("0.01")),
        "r5": (Decimal("1.0"), 1, Decimal("1.00")),
        "r8": (Decimal("-2.3"), -13, Decimal("-0.01")),
        "r12": (Decimal("0.1"), 1, Decimal("2.35")),
        "r13": (Decimal("3.0"), 13, Decimal("9.99")),
    }


def test_outside_the_quality_system_a_lossy_value_stops_the_run(built):
    assert {r[0]: (_d(r[1]), r[2]) for r in built.query("select tariff_id, rate, steps from main.tariff")} == {
        "t1": (Decimal("12.7"), 12), "t2": (Decimal("12.5"), 3)}
    built.write_bronze("meter__tariffs", TARIFF_COLUMNS, [("t3", "2.962", "1")])
    result = built.dbt("build", "--select", "+tariff", check=False)
    assert not result.success
    messages = " ".join(str(getattr(r, "message", "")) for r in result.result.results)
    assert "2.962 loses digits" in messages, messages
