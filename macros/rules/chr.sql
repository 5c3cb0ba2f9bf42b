{% macro chr(point) -%}
  {{ return(adapter.dispatch('chr', 'bloomery')(point)) }}
{%- endmacro %}
{#- ISO SQL's Unicode escape literal (U&'\+XXXXXX'): the character itself, no function. -#}
{% macro default__chr(point) -%}U&'\+{{ '%06X' % (point | int) }}'{%- endmacro %}
