{% macro json_path(expr, path) -%}
  {{ return(adapter.dispatch('json_path', 'bloomery')(expr, path)) }}
{%- endmacro %}
{#- No portable (ISO SQL) form: JSON_QUERY refuses a scalar at `path` (a step reads any JSON
    value there). Each engine implements it under macros/adapters/<engine>/. -#}
{% macro default__json_path(expr, path) -%}{{ bloomery.no_portable_form("json_path", "extracting the JSON value (object, array or scalar) at a path") }}{%- endmacro %}
