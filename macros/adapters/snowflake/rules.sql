{#- REGEXP_LIKE matches the whole string: the subset's mandatory anchors make that the same test. -#}
{% macro snowflake__regex_match(expr, pattern) -%}
  regexp_like({{ expr }}, {{ bloomery.string_literal(pattern) }})
{%- endmacro %}

{% macro snowflake__nfc_normalize(expr) -%}
  {{ exceptions.raise_compiler_error("bloomery: Snowflake has no Unicode normalization function, so a `normalize` rule can not run there (bloomery compile --target-dialect snowflake refuses it).") }}
{%- endmacro %}

{% macro snowflake__chr(point) -%}chr({{ point }}){%- endmacro %}

{% macro snowflake__time_bucket(expr, bucket) -%}date_trunc({{ bloomery.string_literal(bucket) }}, {{ expr }}){%- endmacro %}
