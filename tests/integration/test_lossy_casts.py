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

MODEL = """\
spec_version: 1
entities:
  reading:
    grain: one row per reading
    key: [reading_id]
    fields:
      reading_id: {type: int}
      qty: {type: int}
      score: {type: int}
      amount: {type: "decimal(8,1)"}
      amount_r: {type: "decimal(8,1)"}
      units: {type: int}
      units_r: {type: int}
      whole: {type: int}
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
  qty: {from: "$.qty", transform: [{nullif: ""}, to_int]}
  score:
    from: "$.score"
    transform: [{nullif: "n/a"}, to_int]
    quality:
      - {rule: coercible, on_fail: flag}
  amount: {from: "$.amount", transform: [{to_decimal: [8, 1]}]}
  amount_r: {from: "$.amount_r", transform: [{to_decimal: [8, 1], rounding: half_away_from_zero}]}
  units: {from: "$.units", transform: [to_int]}
  units_r: {from: "$.units_r", transform: [{name: to_int, rounding: half_away_from_zero}]}
  whole: {from: "$.whole", transform: [{to_decimal: [8, 2]}, to_int]}
  price: {from: "$.price", transform: [{parse_decimal: {decimal: ","}}]}
unmapped: ["$._load_id", "$._ingested_at", "$._source_row_id"]
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

COLUMNS = ["id", "qty", "score", "amount", "amount_r", "units", "units_r", "whole", "price",
           "_load_id", "_ingested_at", "_source_row_id"]
AT = "2024-05-01 10:00:00"
CLEAN = {"id": None, "qty": "5", "score": "1", "amount": "1.0", "amount_r": "1", "units": "1", "units_r": "1",
         "whole": "1", "price": "1,00"}


def row(sid: str, id_: str, **values) -> tuple:
    cells = {**CLEAN, "id": id_, **values}
    return (*(cells[c] for c in COLUMNS[:9]), "l1", AT, sid)


ROWS = [
    # nulling steps' own NULLs stay silent; trailing zeros and exponents lose nothing
    row("r1", "1", qty="", score="n/a", amount="12.70", amount_r="2.25", units="12.0", units_r="12.5",
        whole="3.00", price="12,50"),
    row("r2", "2", qty="abc"),                         # finding 1: a value the cast after `nullif` cannot take
    row("r3", "3", amount="2.962"),                    # finding 2: would publish 3.0
    row("r4", "4", units="12.7"),                      # finding 3: would publish 13 on DuckDB
    row("r5", "5", score="abc"),                       # the explicit coercible on a nulling chain: flag
    row("r6", "6", whole="2.50"),                      # a decimal into an int, judged at the second cast
    row("r7", "7.5"),                                  # a key column: its implicit coercible
    row("r8", "8", amount="1.25e1", amount_r="-2.25", units="1e3", units_r="-12.5", price="-0,5"),
    row("r9", "9", amount="1.25e-1"),                  # an exponent that leaves a digit past the scale
    row("r10", "10", amount="0." + "0" * 42 + "1"),    # a digit past anything a decimal(38,s) reads
    row("r11", "11", price="0,005"),                   # parse_decimal rounds no more than a cast
    row("r12", "12", amount=" 7.50 ", units=" 42 ", amount_r="0.05", units_r="0.5"),
]


@pytest.fixture(scope="module", params=ENGINES)
def built(request, tmp_path_factory):
    tmp = tmp_path_factory.mktemp(f"lossy_{request.param}")
    specs = specs_folder(tmp, {"model.yaml": MODEL, "readings.yaml": READINGS, "tariffs.yaml": TARIFFS})
    project = engine_project(request.param, tmp, request, specs)
    assert project.compile() == 0
    project.write_bronze("meter__readings", COLUMNS, ROWS)
    project.write_bronze("meter__tariffs", ["id", "rate", "steps"], [("t1", "12.70", "12.0"), ("t2", "1.25e1", "3")])
    project.result = project.dbt("build", "--exclude", "tariff")
    return project


def _d(v):
    return None if v is None else Decimal(str(v))


def test_casts_are_judged_whatever_came_before_and_lose_no_digit(built):
    rejected = {r[0]: sorted(r[1]) for r in built.query("select _source_row_id, failed_rules from main.reading__reject")}
    assert rejected == {
        "r2": ["qty_coercible"],
        "r3": ["amount_coercible"],
        "r4": ["units_coercible"],
        "r6": ["whole_coercible"],
        "r7": ["reading_id_coercible"],
        "r9": ["amount_coercible"],
        "r10": ["amount_coercible"],
        "r11": ["price_coercible"],
    }


def test_kept_values_are_exact_and_rounded_only_on_request(built):
    kept = {r[0]: (r[1], r[2], _d(r[3]), _d(r[4]), r[5], r[6], r[7], _d(r[8]), sorted(r[9])) for r in built.query(
        "select _source_row_id, qty, score, amount, amount_r, units, units_r, whole, price, _quality_flags "
        "from main.reading")}
    assert kept == {
        "r1": (None, None, Decimal("12.7"), Decimal("2.3"), 12, 13, 3, Decimal("12.50"), []),
        "r5": (5, None, Decimal("1.0"), Decimal("1.0"), 1, 1, 1, Decimal("1.00"), ["score_coercible"]),
        "r8": (5, 1, Decimal("12.5"), Decimal("-2.3"), 1000, -13, 1, Decimal("-0.50"), []),
        "r12": (5, 1, Decimal("7.5"), Decimal("0.1"), 42, 1, 1, Decimal("1.00"), []),
    }
    keys = {r[0]: r[1] for r in built.query("select _source_row_id, reading_id from main.reading")}
    assert keys == {"r1": 1, "r5": 5, "r8": 8, "r12": 12}


def test_outside_the_quality_system_a_lossy_value_stops_the_run(built):
    built.dbt("build", "--select", "+tariff")
    assert {r[0]: (_d(r[1]), r[2]) for r in built.query("select tariff_id, rate, steps from main.tariff")} == {
        "t1": (Decimal("12.7"), 12), "t2": (Decimal("12.5"), 3)}
    built.write_bronze("meter__tariffs", ["id", "rate", "steps"], [("t3", "2.962", "1")])
    result = built.dbt("build", "--select", "+tariff", check=False)
    assert not result.success
    messages = " ".join(str(getattr(r, "message", "")) for r in result.result.results)
    assert "2.962 loses digits" in messages, messages
