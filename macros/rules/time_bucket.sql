{#- The start of the day, month, year or hour `expr` (a date or timestamp) falls in. -#}
{% macro time_bucket(expr, bucket) -%}
  {{ return(adapter.dispatch('time_bucket', 'bloomery')(expr, bucket)) }}
{%- endmacro %}
{#- No portable (ISO SQL) form: each engine implements it under macros/adapters/<engine>/. -#}
{% macro default__time_bucket(expr, bucket) -%}
  {{ exceptions.raise_compiler_error("bloomery: truncating a date or timestamp to a day, month, year or hour (date_trunc) has no portable SQL form; implement <engine>__time_bucket (see macros/adapters/)") }}
{%- endmacro %}
