{#- The history appends no row of its own (mart_record's inserts fill it): append, which Spark's
    file formats take. -#}
{% macro spark__mart_data_quality() -%}
  {%- do config(incremental_strategy='append') -%}
  {{ return(bloomery.default__mart_data_quality()) }}
{%- endmacro %}
