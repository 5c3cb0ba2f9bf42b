{#- delete+insert on reject_id, as a Delta MERGE (every column takes the new row; the select
    already carries first_seen and last_evaluated_at over). -#}
{% macro databricks__reject_rows(entity, staged, sources) -%}
  {%- do config(incremental_strategy='merge', unique_key='reject_id') -%}
  {{ return(bloomery.default__reject_rows(entity, staged, sources)) }}
{%- endmacro %}

{% macro databricks__resolve_rejects(source_relation, staged) -%}
  {{ return(bloomery.default__resolve_rejects(source_relation, staged)) }}
{%- endmacro %}

{% macro databricks__redact_rejects(redact, relation) -%}
  {{ return(bloomery.default__redact_rejects(redact, relation)) }}
{%- endmacro %}
