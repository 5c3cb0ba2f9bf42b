{% macro to_utc(expr, zone) -%}
  {{ return(adapter.dispatch('to_utc', 'bloomery')(expr, zone)) }}
{%- endmacro %}
{% macro default__to_utc(expr, zone) -%}
  cast(({{ expr }} at time zone {{ bloomery.string_literal(zone) }}) at time zone 'UTC' as {{ bloomery.type_name({'name': 'timestamp'}) }})
{%- endmacro %}
