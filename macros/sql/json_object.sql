{#- A JSON object of columns, keys sorted (the compiler sorts them). -#}
{% macro json_object(columns, prefix='', column_prefix='') -%}
  {{ return(adapter.dispatch('json_object', 'bloomery')(columns, prefix, column_prefix)) }}
{%- endmacro %}
{#- ISO SQL/JSON's JSON_OBJECT; NULL ON NULL keeps a null value under its key. -#}
{% macro default__json_object(columns, prefix, column_prefix) -%}
  json_object({% for c in columns | sort %}{{ bloomery.string_literal(c) }} value {{ prefix }}{{ adapter.quote(column_prefix ~ c) }}{{ ", " if not loop.last }}{% endfor %} null on null)
{%- endmacro %}
