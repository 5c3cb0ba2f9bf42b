{#- A JSON object of columns, keys sorted (the compiler sorts them). -#}
{% macro json_object(columns, prefix='', column_prefix='') -%}
  {{ return(adapter.dispatch('json_object', 'bloomery')(columns, prefix, column_prefix)) }}
{%- endmacro %}
{% macro default__json_object(columns, prefix, column_prefix) -%}
  json_object({% for c in columns | sort %}{{ bloomery.string_literal(c) }}, {{ prefix }}{{ adapter.quote(column_prefix ~ c) }}{{ ", " if not loop.last }}{% endfor %})
{%- endmacro %}
