{#- The post-hook of `<entity>__quality`: its rows, with this run's columns, appended to the mart.
    Positional, in the mart's column order (run_started_at last: a mart built before the column
    existed gets it appended by mart_add_run_started_at), as every engine's INSERT takes it.

    A selection can take `<entity>__quality` without the mart model (`dbt build -s
    <entity>__staged+`, the selector compile errors and the docs give: the mart is a parent of
    the view, not a child of the entity). Then nothing has made the mart ready for this run's
    rows, so the hook does what the mart model would: creates it, empty, when the warehouse has
    none, and adds `run_started_at` to one built before that column. -#}
{% macro mart_record(mart) -%}
  {%- if execute -%}
    {%- set mart_built_here = [] -%}
    {%- for id in selected_resources if id.startswith('model.') and id.endswith('.' ~ mart.identifier) -%}
      {%- do mart_built_here.append(id) -%}
    {%- endfor -%}
    {%- if not mart_built_here -%}
      {%- if load_relation(mart) is none -%}
        {%- do run_query(get_create_table_as_sql(False, mart, bloomery.mart_data_quality())) -%}
      {%- else -%}
        {%- do bloomery.mart_add_run_started_at(mart) -%}
      {%- endif -%}
    {%- endif %}
insert into {{ mart }}
select
  {{ bloomery._mart_columns(empty=false) }}
from {{ this }} as counts
  {%- endif -%}
{%- endmacro %}
