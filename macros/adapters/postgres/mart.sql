{#- A list unnests in the select list here too: DuckDB's grouped count (macros/adapters/duckdb/mart.sql). -#}
{% macro postgres__rule_failures(flagged, rules) -%}
  {{ return(bloomery.duckdb__rule_failures(flagged, rules)) }}
{%- endmacro %}
