{% macro json_path(expr, path) -%}
  {{ return(adapter.dispatch('json_path', 'bloomery')(expr, path)) }}
{%- endmacro %}
{% macro default__json_path(expr, path) -%}
  json_extract({{ expr }}, {{ bloomery.string_literal(path) }})
{%- endmacro %}
