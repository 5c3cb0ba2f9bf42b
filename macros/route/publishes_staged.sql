{#- Write once (issue 22). A build that creates the entity from nothing (a first build, a
    `--full-refresh`, every build of a `full` entity) publishes `<entity>__staged` itself instead
    of copying its kept rows into a second table: the copy was about 0.6 of the floor's whole cost
    at 10M rows. Where the engine renames a table cheaply and inside a transaction (DuckDB), the
    entity's post-hook, in the transaction of the entity's own node:
      1. keeps the rows that are not kept, narrow (no bronze payload: the reject table, built
         before the entity, holds it), in `<entity>__staged_rest`;
      2. deletes them from the staged table, drops the columns the entity does not publish and
         adds `_quality_ok`;
      3. moves what the model's own statement wrote (the unknown member, if declared) into it;
      4. drops that statement's table and renames the staged table into its place;
      5. makes `<entity>__staged` a view (the published kept rows, with the verdict columns they
         had, and the rest table), so the ledger and a later `dbt test` read every judged row.
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
