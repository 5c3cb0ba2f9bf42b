{% macro split_part(expr, delimiter, index) -%}
  {{ return(adapter.dispatch('split_part', 'bloomery')(expr, delimiter, index)) }}
{%- endmacro %}
{#- No portable (ISO SQL) form: each engine implements it under macros/adapters/<engine>/. -#}
{% macro default__split_part(expr, delimiter, index) -%}
  {{ exceptions.raise_compiler_error("bloomery: split_part (the n-th field of a delimited text) has no portable SQL form; implement <engine>__split_part (see macros/adapters/)") }}
{%- endmacro %}
