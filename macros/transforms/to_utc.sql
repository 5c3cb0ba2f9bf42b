{% macro to_utc(expr, zone) -%}
  {{ return(adapter.dispatch('to_utc', 'bloomery')(expr, zone)) }}
{%- endmacro %}
{#- No portable (ISO SQL) form: each engine implements it under macros/adapters/<engine>/. -#}
{% macro default__to_utc(expr, zone) -%}
  {{ exceptions.raise_compiler_error("bloomery: converting a wall-clock time in a named time zone to UTC (the standard AT TIME ZONE takes an interval) has no portable SQL form; implement <engine>__to_utc (see macros/adapters/)") }}
{%- endmacro %}
