{#- Gives the planner statistics on a relation this run has just written, as a post-hook of the
    staged table, the entity, its reject table and its ledger: the blocking audits join them in
    the same run. An engine that keeps its own statistics as it writes (DuckDB, Spark's parquet
    tables, the warehouses) has nothing to do, and the hook renders empty (dbt skips it). -#}
{% macro refresh_statistics(relation) -%}
  {{ return(adapter.dispatch('refresh_statistics', 'bloomery')(relation)) }}
{%- endmacro %}

{% macro default__refresh_statistics(relation) -%}{%- endmacro %}
