{% macro regex_match(expr, pattern) -%}
  {{ return(adapter.dispatch('regex_match', 'bloomery')(expr, pattern)) }}
{%- endmacro %}
{#- DuckDB runs RE2; regexp_matches is a substring search, hence the mandatory anchors. -#}
{% macro default__regex_match(expr, pattern) -%}
  regexp_matches({{ expr }}, {{ bloomery.string_literal(pattern) }})
{%- endmacro %}
