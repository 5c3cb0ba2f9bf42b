{#- An explicit-format parse. In a quality entity a value that does not parse is a coercion
    failure like any cast, never an aborted run. -#}
{% macro parse_format(expr, format, type, safe) -%}
  {{ return(adapter.dispatch('parse_format', 'bloomery')(expr, format, type, safe)) }}
{%- endmacro %}
{#- No portable (ISO SQL) form: each engine implements it under macros/adapters/<engine>/. -#}
{% macro default__parse_format(expr, format, type, safe) -%}
  {{ exceptions.raise_compiler_error("bloomery: parsing a date or timestamp with a strptime format has no portable SQL form; implement <engine>__parse_format (see macros/adapters/)") }}
{%- endmacro %}
