{#- TIMESTAMP_TRUNC takes the part last and unquoted, and a timestamp: a date casts to its midnight. -#}
{#- the unit is a keyword here, not a string: taken from a fixed map, so an unknown bucket fails to render -#}
{% macro bigquery__time_bucket(expr, bucket) -%}timestamp_trunc(cast({{ expr }} as timestamp), {{ {'day': 'DAY', 'month': 'MONTH', 'year': 'YEAR', 'hour': 'HOUR'}[bucket] }}){%- endmacro %}

{#- RE2; REGEXP_CONTAINS is a substring search, hence the mandatory anchors. -#}
{% macro bigquery__regex_match(expr, pattern) -%}
  regexp_contains({{ expr }}, {{ bloomery.string_literal(pattern) }})
{%- endmacro %}

{#- nfc_normalize is the default's NORMALIZE(x, NFC). -#}

{% macro bigquery__chr(point) -%}code_points_to_string([{{ point }}]){%- endmacro %}
