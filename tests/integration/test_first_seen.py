"""`first_seen` is when the problem started: the `_ingested_at` of the first delivery of a source
row that was diverted, kept by every re-delivery; a clean delivery before it does not count. A
sequence of loads and one build over all of them agree (issue 19; spec reference, section 0)."""
from __future__ import annotations

import datetime as dt
import sys

import pytest

from .harness import INTEGRATION, DuckProject, PgProject

sys.path.insert(0, str(INTEGRATION))
from corpus import shop  # noqa: E402

COLUMNS = ["id", "email", "country", "signup", "notes", "_load_id", "_ingested_at", "_source_row_id"]
LOADS = [
    [("C1", "a@example.com", "DE", "2021-03-04", None, "l1", "2024-01-01 00:00:00", "c-1")],    # clean
    [("C1", "a@example.com", "DEU", "2021-03-04", None, "l2", "2024-01-02 00:00:00", "c-1")],   # dirty: diverted
    [("C1", "a@example.com", "DEUT", "2021-03-04", None, "l3", "2024-01-03 00:00:00", "c-1")],  # dirty again
]


@pytest.fixture(params=[pytest.param("duckdb", marks=pytest.mark.duckdb),
                        pytest.param("postgres", marks=pytest.mark.postgres)])
def project(request, tmp_path):
    def make(name):
        if request.param == "duckdb":
            return DuckProject(tmp_path / name)
        return PgProject(tmp_path / name, request.getfixturevalue("pg_server"))
    return make


def first_seen(p):
    return p.query("select first_seen, last_seen from main.customer__reject where _source_row_id = 'c-1' "
                   "and resolved_at is null")


def land(p, rows, append):
    p.write_bronze("crm__customers", COLUMNS, rows, append=append)
    if not append:   # the project's other entities, empty
        for table in ("shop__orders", "shop__order_items"):
            p.write_bronze(table, shop.BRONZE[table]["columns"], [])


def test_a_clean_delivery_does_not_start_the_problem(project):
    expected = [(dt.datetime(2024, 1, 2), dt.datetime(2024, 1, 3))]
    loads = project("loads")
    loads.materialize("incremental_by_key")   # each build judges only its load
    for i, rows in enumerate(LOADS):
        land(loads, rows, append=i > 0)
        if i == 0:
            assert loads.compile() == 0
        loads.dbt("build")
        if i == 0:
            assert loads.query("select count(*) from main.customer__reject") == [(0,)]
    assert first_seen(loads) == expected

    at_once = project("at_once")
    land(at_once, [r for rows in LOADS for r in rows], append=False)
    assert at_once.compile() == 0
    at_once.dbt("build")
    assert first_seen(at_once) == expected
