{#- DuckDB runs RE2; regexp_matches is a substring search, hence the mandatory anchors. -#}
{% macro duckdb__regex_match(expr, pattern) -%}
  regexp_matches({{ expr }}, {{ bloomery.string_literal(pattern) }})
{%- endmacro %}

{#- DuckDB has no NORMALIZE(x, NFC). -#}
{% macro duckdb__nfc_normalize(expr) -%}nfc_normalize({{ expr }}){%- endmacro %}

{% macro duckdb__chr(point) -%}chr({{ point }}){%- endmacro %}

{% macro duckdb__time_bucket(expr, bucket) -%}date_trunc({{ bloomery.string_literal(bucket) }}, {{ expr }}){%- endmacro %}
