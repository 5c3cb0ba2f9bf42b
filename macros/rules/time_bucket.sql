{#- The start of the day, month, year or hour `expr` (a date or timestamp) falls in. -#}
{% macro time_bucket(expr, bucket) -%}
  {{ return(adapter.dispatch('time_bucket', 'bloomery')(expr, bucket)) }}
{%- endmacro %}

{% macro default__time_bucket(expr, bucket) -%}{{ bloomery.no_portable_form("time_bucket", "truncating a date or timestamp to a day, month, year or hour (date_trunc)") }}{%- endmacro %}
