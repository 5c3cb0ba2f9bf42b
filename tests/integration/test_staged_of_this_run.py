"""An entity or its reject table selected without its staged model, right after a build that
published the staged table in place (`<entity>__staged` is then a view of what was published):
the node stops with an error naming the selection that builds it, and writes nothing. Before,
`dbt run -s order` emptied an incremental entity (its delete of the re-judged keys read the view of
the entity itself) and a `full` one failed on a missing table; the next build put the rows back,
but in between they were silently gone. `dbt compile` still renders every model."""
from __future__ import annotations

from collections import Counter

import pytest

from .corpus_checks import load_shop
from .harness import DuckProject, PgProject

ENTITIES = ("customer", "order", "order_item")


@pytest.fixture(params=[pytest.param("duckdb", marks=pytest.mark.duckdb),
                        pytest.param("postgres", marks=pytest.mark.postgres)])
def project(request, tmp_path):
    if request.param == "duckdb":
        return DuckProject(tmp_path / "shop")
    return PgProject(tmp_path / "shop", request.getfixturevalue("pg_server"))


def contents(project) -> dict:
    out = {}
    for e in ENTITIES:
        for relation in (e, f"{e}__reject", f"{e}__ledger"):
            out[relation] = Counter(map(repr, project.query(f'select * from main."{relation}"')))
    return out


@pytest.mark.parametrize("kind", ["incremental_by_key", "full"])
def test_an_entity_selected_alone_stops_and_loses_nothing(project, kind):
    if kind != "full":
        project.materialize(kind)
    load_shop(project)
    assert project.compile() == 0
    project.dbt("build", check=False)          # the shop corpus fails some audits on purpose
    assert project.query('select count(*) from main."order"')[0][0] > 0
    before = contents(project)

    for selection in (["run", "-s", "order"], ["build", "-s", "order"], ["run", "-s", "order__reject"],
                      ["run", "-s", "order", "--full-refresh"]):
        res = project.dbt(*selection, check=False)
        assert not res.success, selection
        node = selection[2]
        assert res.statuses[node] == "error", (selection, res.statuses)
        message = next(r.message for r in res.result.results if r.node.name == node)
        assert "order__staged" in message and "dbt build -s order__staged+" in message, message
        assert "Nothing was written" in message, message
        assert contents(project) == before, selection

    # the selection the message gives builds it, and dbt compile renders every model meanwhile
    assert project.dbt("compile").success
    project.dbt("build", "-s", "order__staged+", check=False)
    assert project.query('select count(*) from main."order"')[0][0] == sum(before["order"].values())
