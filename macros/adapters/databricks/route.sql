{% macro databricks__entity_delete_touched(key, dedupe, staged, merged=false) -%}
  {{ return(bloomery.default__entity_delete_touched(key, dedupe, staged, merged)) }}
{%- endmacro %}

{% macro databricks__ledger_forget_rejudged(staged, everything, versions, ledger) -%}
  {{ return(bloomery.default__ledger_forget_rejudged(staged, everything, versions, ledger)) }}
{%- endmacro %}

{#- a Delta table, as dbt-databricks creates its tables (Spark's local session writes parquet) -#}
{% macro databricks__ledger_rest_create(rest, sql) -%}
  {{ return(bloomery.default__ledger_rest_create(rest, sql)) }}
{%- endmacro %}
