{% macro spark__median(expr) -%}
  percentile({{ expr }}, 0.5)
{%- endmacro %}

{% macro spark__time_bucket(expr, bucket) -%}date_trunc({{ bloomery.string_literal(bucket) }}, {{ expr }}){%- endmacro %}
