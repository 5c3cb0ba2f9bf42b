{#- The ledger of a type 1 entity is written once, where the rows are (issue 39; docs/design.md,
    "What a build judges: the ledger"): the entity carries its kept deliveries (their identity is
    in its metadata columns), and `<entity>__ledger_rest` the deliveries that are not kept
    (quarantine, held, deduped with the winner, expired). `<entity>__ledger` is a view of the two
    (`ledger_view`), so nothing writes every delivery a second time.

    The rest table is history, written by the entity node's own hooks: the pre-hook forgets the
    verdicts this run replaces, the post-hook appends this run's deliveries not kept. They run
    inside the entity node's transaction (DuckDB, PostgreSQL), so the entity and the rest table
    change together: a run stopped before the entity commits leaves both as they were, and the
    next run judges the batch again. It is not a dbt node (dbt's `--full-refresh` must not erase
    it: the diverted deliveries bronze no longer holds are still to account for). A type 2
    entity's snapshot does not carry each kept delivery (a retry leaves a version's `_load_id`
    behind), so its ledger stays a table of every delivery (`ledger_rows`). -#}
{% macro ledger_rest(entity_relation) -%}
  {{ return(entity_relation.incorporate(path={'identifier': entity_relation.identifier ~ '__ledger_rest'})) }}
{%- endmacro %}

{#- The ledger's columns, in order: `ledger_rows` selects them, the rest table holds them. -#}
{% macro _ledger_columns() -%}
  {{ return(['source_relation', '_source_row_id', '_load_id', '_ingested_at', 'content_hash', 'route', 'winner_row_id', 'run_id']) }}
{%- endmacro %}
