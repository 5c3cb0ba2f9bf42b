"""Write once on PostgreSQL (issue 22): a build that creates the entity publishes `<entity>__staged`
in place (macros/route/publish_staged.sql). The shop corpus is built twice on real PostgreSQL, once
with the publishing path turned off through the dispatch search order (a project macro, as a user
would override one) and once as shipped; the two builds must leave the same entities (rows and
column types), reject tables, ledgers, quality mart and audit verdicts. The publishing build also
keeps a copy of each staged table as its node wrote it (a post-hook of the test project), so the
`__staged` view left behind can be compared with what the staged node produced."""
from __future__ import annotations

from collections import Counter

import pytest

from .corpus_checks import load_shop
from .harness import PgProject

pytestmark = pytest.mark.postgres

ENTITIES = ("customer", "order", "order_item")

COPY_ONLY = """{#- the test's copy path: the fallback every engine shares -#}
{% macro postgres__publishes_staged(entity) -%}{{ return(false) }}{%- endmacro %}
"""
# dbt_project.yml hooks are additive: this runs after the staged model's own post-hooks
KEEP_STAGED = """
models:
  bloomery_integration_tests:
    +post-hook: "{% if this.name.endswith('__staged') %}{% set kept = this.incorporate(path={'identifier': this.identifier ~ '_before'}) %}drop table if exists {{ kept }}; create table {{ kept }} as select * from {{ this }}{% else %}select 1{% endif %}"
"""
# columns holding the run's identity or its clock, not a verdict
CLOCK = {"run_id", "run_date", "run_day", "run_week", "run_month", "run_quarter", "run_year", "run_started_at",
         "resolved_at", "last_evaluated_at"}


def columns(project, relation: str) -> list[tuple[str, str]]:
    """(name, type as PostgreSQL prints it) of a table or view in `main`, in order."""
    return project.query(
        "select a.attname, format_type(a.atttypid, a.atttypmod) from pg_attribute a "
        "where a.attrelid = %s::regclass and a.attnum > 0 and not a.attisdropped order by a.attnum",
        (f'main."{relation}"',))


def multiset(project, relation: str, leave_out=CLOCK) -> Counter:
    names = [n for n, _ in columns(project, relation) if n not in leave_out]
    select = ", ".join(f'"{n}"' for n in names)
    return Counter(map(repr, project.query(f'select {select} from main."{relation}"')))


def relkind(project, relation: str):
    rows = project.query("select relkind, relpersistence from pg_class c join pg_namespace n on n.oid = c.relnamespace "
                         "where n.nspname = 'main' and c.relname = %s", (relation,))
    return rows[0] if rows else None


def _build(tmp_path_factory, request, name: str, setup) -> tuple[PgProject, dict]:
    project = PgProject(tmp_path_factory.mktemp(name), request.getfixturevalue("pg_server"))
    setup(project)
    load_shop(project)
    assert project.compile() == 0
    done = project.dbt("build", check=False)
    return project, done.statuses


@pytest.fixture(scope="module")
def copied(request, tmp_path_factory):
    return _build(tmp_path_factory, request, "publish_off",
                  lambda p: (p.dir / "macros" / "copy_only.sql").write_text(COPY_ONLY))


@pytest.fixture(scope="module")
def published(request, tmp_path_factory):
    def keep_staged(p):
        with open(p.dir / "dbt_project.yml", "a") as f:
            f.write(KEEP_STAGED)
    return _build(tmp_path_factory, request, "publish_on", keep_staged)


def test_the_publishing_build_took_the_path(copied, published):
    copy, _ = copied
    pub, _ = published
    for e in ENTITIES:
        # the entity is a logged table, `__staged` a view over it and the rest table
        assert relkind(pub, e) == ("r", "p"), e
        assert relkind(pub, f"{e}__staged") == ("v", "p"), e
        assert relkind(pub, f"{e}__staged_rest") == ("r", "p"), e
        assert relkind(copy, f"{e}__staged") == ("r", "p"), e
        assert relkind(copy, f"{e}__staged_rest") is None, e


def test_publishing_leaves_what_the_copy_left(copied, published):
    copy, copy_statuses = copied
    pub, pub_statuses = published
    # every node and audit ends as it did (the copy build's extra `_before` tables are not nodes)
    assert pub_statuses == copy_statuses
    for e in ENTITIES:
        # the published entity's columns, in order, with the declared types (numeric(p,s), not numeric)
        assert columns(pub, e) == columns(copy, e), e
        for relation in (e, f"{e}__reject", f"{e}__ledger"):
            assert multiset(pub, relation) == multiset(copy, relation), relation
    assert multiset(pub, "mart_data_quality") == multiset(copy, "mart_data_quality")


def test_a_decimal_is_published_with_its_declared_type(published):
    pub, _ = published
    types = dict(columns(pub, "order_item"))
    assert (types["unit_price"], types["discount"]) == ("numeric(12,4)", "numeric(12,4)")


def contents(project, relation: str, route: str) -> Counter:
    """The delivery content of the staged rows of one side of the route."""
    return Counter(project.query(f'select _source_row_id, _bloomery_content from main."{relation}" '
                                 f"where (_bloomery_route = 'keep') = {route == 'keep'}"))


def test_the_staged_view_reads_as_the_staged_table_read(published):
    """After publishing, `__staged` holds every row the staged node wrote, with its verdict columns;
    only the bronze payload of diverted rows is gone from it (the reject table holds it), and the
    delivery content of the kept rows (the entity does not publish it, and the ledger records a
    kept delivery by its entity row, by identity alone)."""
    pub, _ = published
    for e in ENTITIES:
        before = f"{e}__staged_before"
        assert columns(pub, f"{e}__staged") == columns(pub, before), e
        leave_out = {"_bloomery_raw", "_bloomery_content"}
        assert multiset(pub, f"{e}__staged", leave_out) == multiset(pub, before, leave_out), e
        assert contents(pub, f"{e}__staged", "other") == contents(pub, before, "other"), e
        assert {c for _, c in contents(pub, f"{e}__staged", "keep")} <= {None}, e
        diverted = pub.query(f'select count(*) from main."{before}" where _bloomery_raw is not null')[0][0]
        assert diverted == pub.query(f'select count(*) from main."{e}__staged" s join main."{e}__reject" r '
                                     f"on r._source_row_id = s._source_row_id and r._load_id = s._load_id "
                                     f"where s._bloomery_route = 'quarantine'")[0][0], e
        assert pub.query(f'select count(*) from main."{e}__staged" where _bloomery_raw is not null') == [(0,)]


def test_the_next_build_replaces_the_view_and_publishes_again(published):
    pub, statuses = published
    again = pub.dbt("build", check=False)
    assert again.statuses == statuses
    for e in ENTITIES:
        assert relkind(pub, f"{e}__staged") == ("v", "p"), e
        leave_out = {"_bloomery_raw", "_bloomery_content"}
        assert multiset(pub, f"{e}__staged", leave_out) == multiset(pub, f"{e}__staged_before", leave_out), e
