{% macro regex_extract(expr, pattern, group) -%}
  {{ return(adapter.dispatch('regex_extract', 'bloomery')(expr, pattern, group)) }}
{%- endmacro %}

{#- The call DuckDB, Spark and Trino share (RE2-style, not ISO SQL): their `<engine>__regex_extract`
    renders it, so the text is written once. -#}
{% macro _regexp_extract_call(expr, pattern, group) -%}
  regexp_extract({{ expr }}, {{ bloomery.string_literal(pattern) }}, {{ group }})
{%- endmacro %}

{% macro default__regex_extract(expr, pattern, group) -%}{{ bloomery.no_portable_form("regex_extract", "a regex group extraction with RE2's meaning (the standard SUBSTRING_REGEX reads XQuery regexes)") }}{%- endmacro %}
