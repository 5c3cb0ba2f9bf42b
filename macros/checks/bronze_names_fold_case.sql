{#- Whether the engine matches a quoted column name in any case: DuckDB, Spark and Databricks,
    BigQuery, Trino and Redshift (which folds names unless enable_case_sensitive_identifier is set)
    do; PostgreSQL and Snowflake compare a quoted name exactly. -#}
{% macro bronze_names_fold_case() -%}
  {{ return(adapter.dispatch('bronze_names_fold_case', 'bloomery')()) }}
{%- endmacro %}

{% macro default__bronze_names_fold_case() -%}{{ return(false) }}{%- endmacro %}
