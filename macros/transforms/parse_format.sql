{#- An explicit-format parse. In a quality entity a value that does not parse is a coercion
    failure like any cast, never an aborted run. -#}
{% macro parse_format(expr, format, type, safe) -%}
  {{ return(adapter.dispatch('parse_format', 'bloomery')(expr, format, type, safe)) }}
{%- endmacro %}

{% macro default__parse_format(expr, format, type, safe) -%}{{ bloomery.no_portable_form("parse_format", "parsing a date or timestamp with a strptime format") }}{%- endmacro %}
