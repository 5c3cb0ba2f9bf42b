{% macro to_utc(expr, zone) -%}
  {{ return(adapter.dispatch('to_utc', 'bloomery')(expr, zone)) }}
{%- endmacro %}

{% macro default__to_utc(expr, zone) -%}{{ bloomery.no_portable_form("to_utc", "converting a wall-clock time in a named time zone to UTC (the standard AT TIME ZONE takes an interval)") }}{%- endmacro %}
