{#- The post-hook of `<entity>__quality`: its rows, with this run's columns, appended to the mart.
    Positional, in the mart's column order (run_started_at last: a mart built before the column
    existed gets it appended by mart_add_run_started_at), as every engine's INSERT takes it. -#}
{% macro mart_record(mart) -%}
  {%- if execute -%}
insert into {{ mart }}
select
  {{ bloomery._mart_columns(empty=false) }}
from {{ this }} as counts
  {%- endif -%}
{%- endmacro %}
