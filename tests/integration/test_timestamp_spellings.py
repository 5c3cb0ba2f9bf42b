"""Timestamp spellings (integration_tests/corpus/timestamps/spellings.py) through the one cast of
text to timestamp, `bloomery.text_to_timestamp`, reached as every caller reaches it: the
NULL-on-failure form (`bloomery.safe_cast`, a quality entity's coercion-failure marker, dedupe's
order, the ingestion-metadata audit) and the produce-or-raise form (`bloomery.hard_cast`, outside
the quality system). One list of expectations, asserted on DuckDB, PostgreSQL and Spark
(`-m spark`): an offset is converted to UTC on every engine, never dropped."""
from __future__ import annotations

import sys

import pytest

from .harness import ENGINES, INTEGRATION, SPARK, cases_table, engine_error, render

sys.path.insert(0, str(INTEGRATION))
from corpus.timestamps.spellings import CASES  # noqa: E402

TS = "{'name': 'timestamp'}"
TEXT = "bloomery.type_name({'name': 'string'})"
SAFE = "select i, cast({{ bloomery.safe_cast('x', " + TS + ") }} as {{ " + TEXT + " }}) as v from __cases__"
HARD = "select i, cast({{ bloomery.hard_cast('x', " + TS + ") }} as {{ " + TEXT + " }}) as v from __cases__"
ROWS = [(str(i), text) for i, (text, _) in enumerate(CASES)]
ACCEPTED = [i for i, (_, expected) in enumerate(CASES) if expected is not None]
REFUSED = [i for i, (_, expected) in enumerate(CASES) if expected is None]


def _ids(indexes):
    return [repr(CASES[i][0]) for i in indexes]


def _expected(indexes):
    return {i: CASES[i][1] for i in indexes}


class Engine:
    """Render the two forms once per engine; run them over the corpus table."""

    def __init__(self, project, table, run):
        self.project, self.table, self.run = project, table, run
        self.safe = render(project, SAFE).replace("__cases__", table)
        self.hard = render(project, HARD).replace("__cases__", table)

    def values(self, sql, where=""):
        return {int(i): v for i, v in self.run(sql + where)}


def _check_safe(engine):
    got = engine.values(engine.safe)
    wrong = {CASES[i][0]: (got[i], CASES[i][1]) for i in range(len(CASES)) if got[i] != CASES[i][1]}
    assert not wrong, "text: (got, expected)\n" + "\n".join(f"  {k!r}: {v}" for k, v in wrong.items())


def _check_hard_produces(engine):
    where = " where i in (" + ", ".join(f"'{i}'" for i in ACCEPTED) + ")"
    assert engine.values(engine.hard, where) == _expected(ACCEPTED)


def _check_hard_raises(engine, index, error):
    with pytest.raises(error) as raised:
        engine.run(engine.hard + f" where i = '{index}'")
    # the value is named; PostgreSQL raises its own cast's error for a value of the right shape that
    # is no calendar date (as its format parse does)
    assert "bloomery: value" in str(raised.value) or "out of range" in str(raised.value)


# -- on each engine -------------------------------------------------------------------------------

@pytest.fixture(scope="module", params=ENGINES + [SPARK])
def engine(request, tmp_path_factory):
    tmp = tmp_path_factory.mktemp(f"timestamps_{request.param}")
    return Engine(*cases_table(request.param, tmp, request, ["i", "x"], ROWS))


def test_null_on_failure(engine):
    _check_safe(engine)


def test_produce_or_raise(engine):
    _check_hard_produces(engine)
    for i in REFUSED:
        _check_hard_raises(engine, i, engine_error(engine.project.engine))
