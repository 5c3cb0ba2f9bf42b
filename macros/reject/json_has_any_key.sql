{#- True when the JSON object `expr` has a top-level key in `keys` (any letter case). -#}
{% macro json_has_any_key(expr, keys) -%}
  {{ return(adapter.dispatch('json_has_any_key', 'bloomery')(expr, keys)) }}
{%- endmacro %}

{% macro default__json_has_any_key(expr, keys) -%}{{ bloomery.no_portable_form("json_has_any_key", "testing a JSON object's top-level keys in any letter case") }}{%- endmacro %}
