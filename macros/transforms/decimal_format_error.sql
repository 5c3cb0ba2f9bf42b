{#- Raise, naming the value and the format: a cast of the message itself, which no engine reads as
    a number (produce-or-raise outside the quality system). Typed as the step's decimal. -#}
{% macro decimal_format_error(expr, step) -%}
  {{ return(adapter.dispatch('decimal_format_error', 'bloomery')(expr, step)) }}
{%- endmacro %}
{% macro default__decimal_format_error(expr, step) -%}
  cast('bloomery: value ' || {{ expr }} || {{ bloomery.string_literal(' does not match the decimal format of ' ~ step.sample) }} as {{ bloomery.type_name(step.type) }})
{%- endmacro %}
