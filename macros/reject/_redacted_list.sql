{#- Its own file because json_has_any_key and json_without_keys (and their engine spellings), in
    files of their own, both read the redacted names through it. -#}
{#- The redacted names as a SQL list of lowercase literals: `'a', 'b'`. -#}
{% macro _redacted_list(keys) -%}
  {%- for k in keys | map('lower') | unique | sort %}{{ bloomery.string_literal(k) }}{{ ", " if not loop.last }}{% endfor -%}
{%- endmacro %}
