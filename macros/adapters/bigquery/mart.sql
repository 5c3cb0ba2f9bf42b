{% macro bigquery__mart_data_quality() -%}
  {%- do config(incremental_strategy='merge', unique_key=['run_id', 'entity', 'mapping', 'rule']) -%}
  {{ return(bloomery.default__mart_data_quality()) }}
{%- endmacro %}
