{#- RE2J; regexp_like is a substring search, hence the mandatory anchors. -#}
{% macro trino__regex_match(expr, pattern) -%}
  regexp_like({{ expr }}, {{ bloomery.string_literal(pattern) }})
{%- endmacro %}

{#- nfc_normalize is the default's NORMALIZE(x, NFC). -#}

{% macro trino__chr(point) -%}chr({{ point }}){%- endmacro %}

{% macro trino__time_bucket(expr, bucket) -%}date_trunc({{ bloomery.string_literal(bucket) }}, {{ expr }}){%- endmacro %}
