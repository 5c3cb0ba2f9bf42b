{% macro spark__median(expr) -%}
  percentile({{ expr }}, 0.5)
{%- endmacro %}

{% macro spark__time_bucket(expr, bucket) -%}date_trunc({{ bloomery.string_literal(bucket) }}, {{ expr }}){%- endmacro %}

{#- xxhash64 takes several values; summed as decimal(38, 0): an ANSI bigint sum would raise. -#}
{% macro spark__identity_fingerprint(columns) -%}sum(cast(xxhash64({{ columns | join(', ') }}) as decimal(38, 0))){%- endmacro %}
