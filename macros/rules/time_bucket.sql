{#- The start of the day, month, year or hour `expr` (a date or timestamp) falls in. -#}
{% macro time_bucket(expr, bucket) -%}
  {{ return(adapter.dispatch('time_bucket', 'bloomery')(expr, bucket)) }}
{%- endmacro %}
{% macro default__time_bucket(expr, bucket) -%}date_trunc({{ bloomery.string_literal(bucket) }}, {{ expr }}){%- endmacro %}
