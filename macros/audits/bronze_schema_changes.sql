{#- The columns the bronze relations `names` gained, lost or retyped between the two latest
    snapshots of `quality_bronze_columns` (this build's and the one before), read by the entity's
    `<entity>_drift` test. One row per change: `added` (a new column: the mapping does not read it
    yet, so nothing is lost, but someone should look), `lost` (gone: a column a mapping reads also
    stops the entity's `__staged` model, with the fix), `retyped` (`type_before` -> `type_after`, as
    the engine names the types). A first build, or a relation new since the build before, reports
    nothing.

    `names` are SQL string literals already (the spec's source names, escaped by the caller). -#}
{% macro bronze_schema_changes(columns, names) -%}
with snapshots as (
  select run_id, source_name, column_name, data_type, run_started_at
  from {{ columns }}
  where source_name in ({{ names | join(', ') }})
),
runs as (
  select run_id, row_number() over (order by max(run_started_at) desc, run_id desc) as age
  from snapshots
  group by run_id
),
now_ as (
  select s.run_id, s.source_name, s.column_name, s.data_type from snapshots as s join runs as r on r.run_id = s.run_id where r.age = 1
),
was as (
  select s.source_name, s.column_name, s.data_type from snapshots as s join runs as r on r.run_id = s.run_id where r.age = 2
),
both_ as (
  select distinct n.source_name from now_ as n join was as w on w.source_name = n.source_name
)
select
  (select max(run_id) from now_) as run_id,
  coalesce(n.source_name, w.source_name) as source_name,
  coalesce(n.column_name, w.column_name) as column_name,
  case when w.column_name is null then 'added' when n.column_name is null then 'lost' else 'retyped' end as change,
  w.data_type as type_before,
  n.data_type as type_after
from now_ as n
full outer join was as w on w.source_name = n.source_name and w.column_name = n.column_name
where coalesce(n.source_name, w.source_name) in (select source_name from both_)
  and (w.column_name is null or n.column_name is null or w.data_type <> n.data_type)
{%- endmacro %}
