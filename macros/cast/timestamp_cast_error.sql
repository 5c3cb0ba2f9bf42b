{#- Raise, naming the value: a cast of the message itself, which no engine reads as a timestamp
    (produce-or-raise outside the quality system). Typed as a timestamp. -#}
{% macro timestamp_cast_error(expr) -%}
  {{ return(adapter.dispatch('timestamp_cast_error', 'bloomery')(expr)) }}
{%- endmacro %}
{% macro default__timestamp_cast_error(expr) -%}
  cast('bloomery: value ' || {{ expr }} || ' is not an ISO 8601 timestamp' as {{ bloomery.type_name({'name': 'timestamp'}) }})
{%- endmacro %}
