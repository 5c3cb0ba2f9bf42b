"""The SQL models of one entity: `<entity>__staged` (the one pass that judges every row),
`<entity>` (kept rows, or `<entity>__kept` under a type 2 snapshot), `<entity>__reject` (with
`quarantine:`) and `<entity>__ledger` (with ingestion metadata: a view of the entity and the rest
table the entity's hooks write, or a table built last under a type 2 snapshot).

Separate because these are what routes a row (keep, quarantine, deduped), and their order of
building (reject before entity; the verdicts with the entity, or the ledger last) is what makes a
stopped run safe to re-run.
"""
from __future__ import annotations

from ..resolve.ir import Entity
from .jinja_literal import literal
from .nodes import SQL_HEADER, _config, _entity_literal, _grants, _ir, _merged, _sources, _tags


# A post-hook of every table the blocking audits read in the run that writes it: on PostgreSQL
# the planner has no statistics on them yet (macros/sql/refresh_statistics.sql); empty elsewhere.
STATISTICS = "{{ bloomery.refresh_statistics(this) }}"


def _staged_of_this_run(staged: str) -> str:
    """The first pre-hook of the entity and of its reject table: a node selected without its staged
    model stops before it writes (macros/route/staged_of_this_run.sql)."""
    return "{{ bloomery.staged_of_this_run(ref(" + staged + ")) }}"


def _staged_sql(entity: Entity) -> str:
    sources = _sources(entity)
    parents = sorted({(r.parent, r.published) for r in entity.rules if r.kind == "referential"})
    parents_lit = "{" + ", ".join(
        f"{literal(p)}: " + (f"bloomery.published_relation({literal(p)})" if cut else f"ref({literal(p)})")
        for p, cut in parents) + "}"
    return (SQL_HEADER + _entity_literal(entity)
            + _config(materialized="table", post_hook=[STATISTICS], grants=_grants(entity), tags=_tags(entity.name))
            + "{{ bloomery.quality_split(entity, " + sources + ", " + parents_lit + ") }}\n")


def _entity_sql(entity: Entity) -> str:
    staged = literal(f"{entity.name}__staged")
    # write once: a build that creates the entity publishes the staged table itself where the
    # engine renames cheaply (macros/route/publish_staged.sql); elsewhere the hook renders `select 1`
    # (a hook does not see the model's `entity`: the mapping's names are passed as literals)
    first = entity.mappings[0]
    publish = ["{{ bloomery.publish_staged(" + literal(first.name) + ", " + literal(first.source)
               + ", ref(" + staged + ")) }}", STATISTICS]
    guard = [_staged_of_this_run(staged)]
    # a type 1 entity's ledger is its kept rows and the rest table these hooks write, inside the
    # entity node's transaction, before the staged table is published (macros/route/ledger_rest.sql)
    forget = []
    if entity.metadata and entity.scd != "type2":
        everything = ", true" if entity.materialization == "full" else ""
        forget = ["{{ bloomery.ledger_rest_forget(ref(" + staged + ")" + everything + ") }}"]
        publish = ["{{ bloomery.ledger_rest_record(ref(" + staged + ")) }}"] + publish
    if entity.scd == "type2":
        # History is the snapshot's: this view is what it versions, this run's kept rows.
        config = _config(materialized="view", tags=_tags(entity.name))
    elif entity.metadata and entity.materialization != "full":
        # incremental_by_key / incremental_by_partition: the batch's touched keys are deleted and
        # its kept rows appended (an IR without the key is judged incrementally by quality_split too)
        merged = ", true" if _merged(entity) else ""
        # the key that identifies a row (its delivered value where unknown_member rewrites it)
        hook = ("{{ bloomery.entity_delete_touched(" + literal(entity.identity_key) + ", "
                + literal(bool(entity.dedupe)) + ", ref(" + staged + ")" + merged + ") }}")
        config = _config(materialized="incremental", incremental_strategy="append", on_schema_change="sync_all_columns",
                         pre_hook=guard + [hook] + forget, post_hook=publish, grants=_grants(entity), tags=_tags(entity.name))
    else:
        # `full`: every build judges all of bronze (quality_split's batch is none) and replaces the table
        config = _config(materialized="table", pre_hook=guard + forget, post_hook=publish, grants=_grants(entity), tags=_tags(entity.name))
    deps = ""
    if entity.quarantine:
        # the reject table first: a run stopped between the two leaves diverted rows recorded
        # and kept rows unpublished, which the next run's re-judging of the batch completes
        deps = "-- depends_on: {{ ref(" + literal(f"{entity.name}__reject") + ") }}\n"
    return (SQL_HEADER + deps + _entity_literal(entity) + config
            + "{{ bloomery.entity_rows(entity, ref(" + staged + ")) }}\n")


def _ledger_sql(entity: Entity) -> str:
    """`<entity>__ledger`: the bronze deliveries judged so far, by identity, with their route. Of a
    type 1 entity it is a view: the entity's kept rows and the rest table its hooks write (one
    write of each verdict, docs/design.md "What a build judges: the ledger"). Of a type 2 entity
    it is a table of every delivery, built last (after the entity and its reject table): what it
    records is what the next incremental run will not judge again, so a run stopped before it
    leaves its batch to be judged again rather than lost."""
    name = entity.name
    staged = literal(f"{name}__staged")
    deps = ""
    if entity.quarantine:
        deps += "-- depends_on: {{ ref(" + literal(f"{name}__reject") + ") }}\n"
    if entity.scd != "type2":
        source = "none" if _merged(entity) else literal(entity.mappings[0].source)
        config = _config(materialized="view", tags=_tags(name))
        return (SQL_HEADER + deps + config
                + "{{ bloomery.ledger_view(ref(" + literal(name) + "), " + source + ") }}\n")
    deps = "-- depends_on: {{ ref(" + literal(name) + ") }}\n" + deps
    # judged deliveries are history, as the reject table is: a full refresh must not forget the
    # diverted deliveries bronze no longer holds (their reject rows are still accounted for)
    everything = ", true" if entity.materialization == "full" else ""
    # a type 2 entity's snapshot deletes nothing: the kept verdicts of deliveries bronze no longer
    # holds stay too, matched to the versions they left current (docs/design.md, "Bronze retention")
    forget = "{{ bloomery.ledger_forget_rejudged(ref(" + staged + ")" + everything + ", versions=true) }}"
    config = _config(materialized="incremental", incremental_strategy="append", on_schema_change="fail",
                     full_refresh=False, pre_hook=[forget], post_hook=[STATISTICS], tags=_tags(name))
    return SQL_HEADER + deps + config + "{{ bloomery.ledger_rows(ref(" + staged + ")) }}\n"


def _reject_sql(entity: Entity) -> str:
    staged = literal(f"{entity.name}__staged")
    # a merged entity's rejects are matched by (bronze relation, source row id): the list of them
    sources = [m.source for m in entity.mappings]
    hook = "{{ bloomery.resolve_rejects(" + literal(sources if _merged(entity) else sources[0]) + ", ref(" + staged + ")) }}"
    purge = "{{ bloomery.purge_expired(" + str(entity.quarantine.retention_hours) + ", none, ref(" + staged + ")) }}"
    # statistics first: the hooks after it join the rows just written with the staged table
    hooks = [STATISTICS, hook, purge]
    if entity.quarantine.redact:
        # rows diverted before `redact` was widened still hold those columns in `raw`: the next
        # build strips them (after the purge, which leaves fewer rows to look at)
        hooks.append("{{ bloomery.redact_rejects(" + literal(entity.quarantine.redact) + ") }}")
    return (SQL_HEADER + _entity_literal(entity)
            + _config(materialized="incremental", incremental_strategy="delete+insert", unique_key="reject_id",
                      full_refresh=False, on_schema_change="fail",
                      pre_hook=[_staged_of_this_run(staged)], post_hook=hooks,
                      grants=_grants(entity), tags=_tags(entity.name), meta={"bloomery": _ir(entity)})
            + "{{ bloomery.reject_rows(entity, ref(" + staged + "), " + _sources(entity) + ") }}\n")
