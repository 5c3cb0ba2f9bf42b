{#- The statement that materializes `sql` into the scratch table `relation`: the rows are read
    again after the tables they came from have changed, so a lazy view would not do. -#}
{% macro create_scratch_table(relation, sql) -%}
  {{ return(adapter.dispatch('create_scratch_table', 'bloomery')(relation, sql)) }}
{%- endmacro %}

{% macro default__create_scratch_table(relation, sql) -%}
  create temporary table {{ relation }} as
  {{ sql }}
{%- endmacro %}
