{#- Raise, naming a text outside the grammar of numeric text (number_pattern) in a cast to int or
    decimal: a cast of the message itself, which no engine reads as a number (produce-or-raise
    outside the quality system; the engine's own cast would read `0x1F` or `NaN` on PostgreSQL). -#}
{% macro not_a_number_error(expr, type) -%}
  {{ return(adapter.dispatch('not_a_number_error', 'bloomery')(expr, type)) }}
{%- endmacro %}

{% macro default__not_a_number_error(expr, type) -%}
  cast('bloomery: value ' || cast({{ expr }} as {{ bloomery.type_name({'name': 'string'}) }}) || {{ bloomery.string_literal(' is not a number (digits with one point, a sign, an exponent) in a cast to ' ~ bloomery.type_name(type)) }} as {{ bloomery.type_name(type) }})
{%- endmacro %}
