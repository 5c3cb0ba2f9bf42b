{% macro split_part(expr, delimiter, index) -%}
  {{ return(adapter.dispatch('split_part', 'bloomery')(expr, delimiter, index)) }}
{%- endmacro %}

{#- The call most engines share (DuckDB, Spark, Trino, Snowflake; not ISO SQL): their
    `<engine>__split_part` renders it, so the text is written once. -#}
{% macro _split_part_call(expr, delimiter, index) -%}
  split_part({{ expr }}, {{ bloomery.string_literal(delimiter) }}, {{ index }})
{%- endmacro %}

{% macro default__split_part(expr, delimiter, index) -%}{{ bloomery.no_portable_form("split_part", "split_part (the n-th field of a delimited text)") }}{%- endmacro %}
