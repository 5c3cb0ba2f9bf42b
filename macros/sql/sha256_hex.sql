{#- Lowercase hex sha256 of a SQL text expression (reject_id hashes with it). The default is
    DuckDB's `sha256`, which already returns lowercase hex. -#}
{% macro sha256_hex(expr) -%}
  {{ return(adapter.dispatch('sha256_hex', 'bloomery')(expr)) }}
{%- endmacro %}
{% macro default__sha256_hex(expr) -%}sha256({{ expr }}){%- endmacro %}
