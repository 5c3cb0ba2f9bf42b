{#- Write once (issue 22). A build that creates the entity from nothing (a first build, a
    `--full-refresh`, every build of a `full` entity) publishes `<entity>__staged` itself instead
    of copying its kept rows into a second table: the copy was about 0.6 of the floor's whole cost
    at 10M rows on DuckDB. Where the engine renames a table cheaply and inside a transaction
    (DuckDB, PostgreSQL), the entity's post-hook, in the transaction of the entity's own node
    (publish_staged.sql, `_publish_in_place`):
      1. keeps the rows that are not kept, narrow (no bronze payload: the reject table, built
         before the entity, holds it), in `<entity>__staged_rest`;
      2. deletes them from the staged table and drops the columns the entity does not publish
         (the staged table already carries `_quality_ok` and the declared types, so nothing is
         added or altered: on PostgreSQL either would write every tuple again);
      3. moves what the model's own statement wrote (the unknown member, if declared) into it;
      4. drops that statement's table and renames the staged table into its place;
      5. makes `<entity>__staged` a view (the published kept rows, with the verdict columns they
         had but their delivery content, which the entity does not publish, and the rest table),
         so a later `dbt test` of the staged audits reads every judged row.
    The ledger's verdicts were recorded before (ledger_rest.sql: the kept rows are the entity's,
    the rest table's row written by the hook before this one).
    Nothing is visible before the blocking audits on `__staged` passed (they run before the entity
    node), and a kill at any point before the node commits rolls all of it back. The next build
    replaces the view with a table again. Other engines, and builds that append to an existing
    entity, copy as before (`entity_rows`). -#}
{% macro publishes_staged(entity) -%}
  {{ return(adapter.dispatch('publishes_staged', 'bloomery')(entity)) }}
{%- endmacro %}

{% macro default__publishes_staged(entity) -%}
  {{ return(false) }}
{%- endmacro %}

{#- Which entities an engine that publishes in place publishes: not a type 2 entity (its entity is
    a view the snapshot versions), nor a merged one (its `_source` is renamed from
    `_bloomery_source`), nor one without ingestion metadata (the view tells the unknown member
    from judged rows by its missing `_source_row_id`); and only on a build that creates the
    entity's table. -#}
{% macro _publishable(entity) -%}
  {{ return(entity.scd != 'type2' and entity.metadata and (entity.mappings | length) == 1
            and model.config.materialized in ('table', 'incremental') and not is_incremental()) }}
{%- endmacro %}
