{% macro json_scalar(expr, path) -%}
  {{ return(adapter.dispatch('json_scalar', 'bloomery')(expr, path)) }}
{%- endmacro %}
{#- ISO SQL/JSON's JSON_VALUE: the scalar at `path`, as text (BigQuery's, which reads `$."quoted"`
    members as they are, is this one). -#}
{% macro default__json_scalar(expr, path) -%}
  json_value({{ expr }}, {{ bloomery.string_literal(path) }})
{%- endmacro %}
