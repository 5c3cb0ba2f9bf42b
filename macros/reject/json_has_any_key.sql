{#- True when the JSON object `expr` has a top-level key in `keys` (any letter case). -#}
{% macro json_has_any_key(expr, keys) -%}
  {{ return(adapter.dispatch('json_has_any_key', 'bloomery')(expr, keys)) }}
{%- endmacro %}

{#- No portable (ISO SQL) form: each engine implements it under macros/adapters/<engine>/. -#}
{% macro default__json_has_any_key(expr, keys) -%}
  {{ exceptions.raise_compiler_error("bloomery: testing a JSON object's top-level keys in any letter case has no portable SQL form; implement <engine>__json_has_any_key (see macros/adapters/)") }}
{%- endmacro %}
