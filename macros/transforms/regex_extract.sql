{% macro regex_extract(expr, pattern, group) -%}
  {{ return(adapter.dispatch('regex_extract', 'bloomery')(expr, pattern, group)) }}
{%- endmacro %}
{% macro default__regex_extract(expr, pattern, group) -%}
  regexp_extract({{ expr }}, {{ bloomery.string_literal(pattern) }}, {{ group }})
{%- endmacro %}
