{#- True when a non-NULL document is not JSON, on engines whose extraction raises on one; empty
    (no guard) where the extraction itself yields NULL. -#}
{% macro json_malformed(expr) -%}
  {{ return(adapter.dispatch('json_malformed', 'bloomery')(expr)) }}
{%- endmacro %}
{% macro default__json_malformed(expr) -%}{%- endmacro %}
