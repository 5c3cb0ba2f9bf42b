{% macro regex_match(expr, pattern) -%}
  {{ return(adapter.dispatch('regex_match', 'bloomery')(expr, pattern)) }}
{%- endmacro %}
{#- No portable (ISO SQL) form: each engine implements it under macros/adapters/<engine>/. -#}
{% macro default__regex_match(expr, pattern) -%}
  {{ exceptions.raise_compiler_error("bloomery: a regex match with RE2's meaning (the standard LIKE_REGEX reads XQuery regexes) has no portable SQL form; implement <engine>__regex_match (see macros/adapters/)") }}
{%- endmacro %}
