{#- POSIX ARE; `~` is a substring search like the others, hence the mandatory anchors. -#}
{% macro postgres__regex_match(expr, pattern) -%}
  ({{ expr }} ~ {{ bloomery.string_literal(pattern) }})
{%- endmacro %}

{#- nfc_normalize is the default's NORMALIZE(x, NFC), which needs a UTF8 database here. -#}

{#- Text can not hold U+0000 in Postgres and chr(0) raises: leave it out of a charset, where it
    could never match anyway. -#}
{% macro postgres__chr(point) -%}{%- if point | int == 0 -%}''{%- else -%}chr({{ point }}){%- endif -%}{%- endmacro %}

{% macro postgres__time_bucket(expr, bucket) -%}date_trunc({{ bloomery.string_literal(bucket) }}, {{ expr }}){%- endmacro %}
