{% macro nfc_normalize(expr) -%}
  {{ return(adapter.dispatch('nfc_normalize', 'bloomery')(expr)) }}
{%- endmacro %}
{#- ISO SQL's NORMALIZE (PostgreSQL, Trino and BigQuery spell it so; DuckDB: nfc_normalize). -#}
{% macro default__nfc_normalize(expr) -%}normalize({{ expr }}, NFC){%- endmacro %}
