{#- quarantine rate per entity and run, derived from the stored counts (a stored rate would be
    wrong at every other grouping). -#}
{% macro quality_quarantine_rate(mart) -%}
select
  run_id, run_date, entity,
  sum(rows_quarantined) as rows_quarantined,
  sum(rows_evaluated) as rows_evaluated,
  case when sum(rows_evaluated) = 0 then null
       else cast(sum(rows_quarantined) as {{ bloomery.type_name({'name': 'decimal', 'precision': 38, 'scale': 10}) }}) / sum(rows_evaluated) end
    as quality_quarantine_rate
from {{ mart }}
group by run_id, run_date, entity
{%- endmacro %}
