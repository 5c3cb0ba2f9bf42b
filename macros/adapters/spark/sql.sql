{% macro spark__median(expr) -%}
  percentile({{ expr }}, 0.5)
{%- endmacro %}
