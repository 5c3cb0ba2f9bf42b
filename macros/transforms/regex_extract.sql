{% macro regex_extract(expr, pattern, group) -%}
  {{ return(adapter.dispatch('regex_extract', 'bloomery')(expr, pattern, group)) }}
{%- endmacro %}
{#- No portable (ISO SQL) form: each engine implements it under macros/adapters/<engine>/. -#}
{% macro default__regex_extract(expr, pattern, group) -%}
  {{ exceptions.raise_compiler_error("bloomery: a regex group extraction with RE2's meaning (the standard SUBSTRING_REGEX reads XQuery regexes) has no portable SQL form; implement <engine>__regex_extract (see macros/adapters/)") }}
{%- endmacro %}
