{% macro regex_match(expr, pattern) -%}
  {{ return(adapter.dispatch('regex_match', 'bloomery')(expr, pattern)) }}
{%- endmacro %}

{% macro default__regex_match(expr, pattern) -%}{{ bloomery.no_portable_form("regex_match", "a regex match with RE2's meaning (the standard LIKE_REGEX reads XQuery regexes)") }}{%- endmacro %}
