{#- Raise, naming the value and the type: a cast of the message itself, which no engine reads as a
    number (produce-or-raise outside the quality system). Typed as the cast's type. -#}
{% macro lossy_cast_error(expr, type) -%}
  {{ return(adapter.dispatch('lossy_cast_error', 'bloomery')(expr, type)) }}
{%- endmacro %}

{% macro default__lossy_cast_error(expr, type) -%}
  cast('bloomery: value ' || cast({{ expr }} as {{ bloomery.type_name({'name': 'string'}) }}) || {{ bloomery.string_literal(' loses digits in a cast to ' ~ bloomery.type_name(type) ~ '; opt into rounding with `rounding: half_away_from_zero`') }} as {{ bloomery.type_name(type) }})
{%- endmacro %}
