{#- A timestamp `minutes` (an integer expression) earlier: local time at an offset, to UTC. -#}
{% macro timestamp_minus_minutes(ts, minutes) -%}
  {{ return(adapter.dispatch('timestamp_minus_minutes', 'bloomery')(ts, minutes)) }}
{%- endmacro %}
{% macro default__timestamp_minus_minutes(ts, minutes) -%}
  ({{ ts }} - {{ minutes }} * interval '1' minute)
{%- endmacro %}
