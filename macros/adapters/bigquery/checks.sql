{#- The bronze column snapshots: a new run_id every build, so the merge only inserts. -#}
{% macro bigquery__quality_bronze_columns(sources) -%}
  {%- do config(incremental_strategy='merge', unique_key=['run_id', 'source_name', 'column_name']) -%}
  {{ return(bloomery.default__quality_bronze_columns(sources)) }}
{%- endmacro %}

{% macro bigquery__bronze_names_fold_case() -%}{{ return(true) }}{%- endmacro %}

{#- BigQuery reads the schema through its API (free; a query is billed). -#}
{% macro bigquery__bronze_column_types(relation) -%}
  {{ return(bloomery._adapter_column_types(relation)) }}
{%- endmacro %}

{% macro bigquery__bronze_column_names(relation) -%}
  {{ return(adapter.get_columns_in_relation(relation) | map(attribute='name') | list) }}
{%- endmacro %}
