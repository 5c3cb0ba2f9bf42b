{% macro json_scalar(expr, path) -%}
  {{ return(adapter.dispatch('json_scalar', 'bloomery')(expr, path)) }}
{%- endmacro %}
{% macro default__json_scalar(expr, path) -%}
  json_extract_string({{ expr }}, {{ bloomery.string_literal(path) }})
{%- endmacro %}
