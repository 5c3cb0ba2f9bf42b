{#- Every databricks override of the package in one place. dbt dispatches databricks__ first, then
    spark__ (dbt-databricks declares dbt-spark as its parent), then default__: what is not here is
    the Spark port's SQL. Databricks is rendered and parsed (tests/dialects), not run.

    Its tables are Delta, which has DELETE, UPDATE and MERGE: the writes go back to the package's
    DML (the entity's pre-hook delete, the reject table's merge on reject_id with the resolve and
    purge post-hooks, replay's statements) instead of Spark's parquet rewrites. -#}

{% macro databricks__entity_delete_touched(key, dedupe, staged, merged=false) -%}
  {{ return(bloomery.default__entity_delete_touched(key, dedupe, staged, merged)) }}
{%- endmacro %}

{% macro databricks__ledger_forget_rejudged(staged, everything) -%}
  {{ return(bloomery.default__ledger_forget_rejudged(staged, everything)) }}
{%- endmacro %}

{#- delete+insert on reject_id, as a Delta MERGE (every column takes the new row; the select
    already carries first_seen and last_evaluated_at over). -#}
{% macro databricks__reject_rows(entity, staged, sources) -%}
  {%- do config(incremental_strategy='merge', unique_key='reject_id') -%}
  {{ return(bloomery.default__reject_rows(entity, staged, sources)) }}
{%- endmacro %}

{% macro databricks__resolve_rejects(source_relation, staged) -%}
  {{ return(bloomery.default__resolve_rejects(source_relation, staged)) }}
{%- endmacro %}

{% macro databricks__purge_expired(retention_hours, relation, fresh) -%}
  {{ return(bloomery.default__purge_expired(retention_hours, relation, fresh)) }}
{%- endmacro %}

{% macro databricks__mart_data_quality(entities, reconcile) -%}
  {%- do config(incremental_strategy='merge', unique_key=['run_id', 'entity', 'mapping', 'rule']) -%}
  {{ return(bloomery.default__mart_data_quality(entities, reconcile)) }}
{%- endmacro %}

{% macro databricks__replay_apply(ir, kept, reject, outcome, now) -%}
  {{ return(bloomery.default__replay_apply(ir, kept, reject, outcome, now)) }}
{%- endmacro %}

{#- Delta tables by default; still real tables, not lazy views. -#}
{% macro databricks__create_scratch_table(relation, sql) -%}
  create or replace table {{ relation }} as
  {{ sql }}
{%- endmacro %}

{#- reflect() is not open on SQL warehouses and Unity Catalog shared clusters. -#}
{% macro databricks__nfc_normalize(expr) -%}
  {{ exceptions.raise_compiler_error("bloomery: Databricks SQL gives no Unicode normalization (reflect() is closed there), so a `normalize` rule can not run (bloomery compile --target-dialect databricks refuses it).") }}
{%- endmacro %}
