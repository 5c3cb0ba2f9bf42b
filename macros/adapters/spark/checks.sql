{% macro spark__bronze_names_fold_case() -%}{{ return(true) }}{%- endmacro %}

{#- Spark has no information_schema; dbt-spark's describe quotes the relation with backticks. -#}
{% macro spark__bronze_column_types(relation) -%}
  {{ return(bloomery._adapter_column_types(relation)) }}
{%- endmacro %}
