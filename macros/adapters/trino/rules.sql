{#- RE2J; regexp_like is a substring search, hence the mandatory anchors. -#}
{% macro trino__regex_match(expr, pattern) -%}
  regexp_like({{ expr }}, {{ bloomery.string_literal(pattern) }})
{%- endmacro %}

{% macro trino__nfc_normalize(expr) -%}normalize({{ expr }}, NFC){%- endmacro %}
