{% macro chr(point) -%}
  {{ return(adapter.dispatch('chr', 'bloomery')(point)) }}
{%- endmacro %}
{% macro default__chr(point) -%}chr({{ point }}){%- endmacro %}
