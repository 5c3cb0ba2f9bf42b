{% macro split_part(expr, delimiter, index) -%}
  {{ return(adapter.dispatch('split_part', 'bloomery')(expr, delimiter, index)) }}
{%- endmacro %}
{% macro default__split_part(expr, delimiter, index) -%}
  split_part({{ expr }}, {{ bloomery.string_literal(delimiter) }}, {{ index }})
{%- endmacro %}
