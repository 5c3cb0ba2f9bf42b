{#- The column names of an existing relation, as the engine reports them: the columns of an empty
    select from the relation as every model names it (quoted), so no name is written into a string.
    BigQuery reads the table's schema through its API instead (free there; a query is billed). -#}
{% macro bronze_column_names(relation) -%}
  {{ return(adapter.dispatch('bronze_column_names', 'bloomery')(relation)) }}
{%- endmacro %}

{% macro default__bronze_column_names(relation) -%}
  {{ return(run_query('select * from ' ~ relation ~ ' where 1 = 0').column_names | list) }}
{%- endmacro %}
