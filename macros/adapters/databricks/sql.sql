{#- Delta tables by default; still real tables, not lazy views. -#}
{% macro databricks__create_scratch_table(relation, sql) -%}
  create or replace table {{ relation }} as
  {{ sql }}
{%- endmacro %}

{% macro databricks__median(expr) -%}
  percentile({{ expr }}, 0.5)
{%- endmacro %}
