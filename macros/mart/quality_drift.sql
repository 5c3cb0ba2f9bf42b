{#- `quality_drift`: quality over time, read from the mart's history (one snapshot per run). One
    row per run, entity and measure:

      quarantine_rate  unresolved rejects over rows evaluated (the mart's accounting row, summed
                       over a merged entity's mappings): the rate quality_quarantine_rate shows;
                       for an incremental entity, the run's own: the increase of unresolved
                       rejects over the increase of volume (NULL, not judged, when it is 0);
      volume           bronze rows accounted for (rows_evaluated + rows_deduped);
      rule             rows_failed of one rule (one series per rule).

    The mart counts the tables as they stand after the run. For an entity whose build judges all
    of bronze (`full`) that is what the run judged. For an incremental entity the counts grow run
    after run, and what this run judged is their increase since the entity's previous snapshot, so
    volume, rule failures and the quarantine rate are taken from that increase (the first
    snapshot: its own counts, which the first build judged from all of bronze). A replay or a
    supersession that resolves rejects lowers the increase, and may be out of band too.

    Runs are ordered per entity by run_date, then run_started_at (NULL, for snapshots taken before
    the mart stored it, first), then run_id. The baseline of run n is the values of runs n-window
    .. n-1 that have one; its median and median absolute deviation (MAD) are computed by grouping,
    not by window functions (a median is no window function on PostgreSQL). A run is out of band
    when at least min_history runs make its baseline and its value is above median + band (for
    volume: above it or below median - band; fewer failures or quarantined rows is no alarm, and a
    load that shrinks is the volume test's to report). The band is the
    largest of sensitivity x 1.4826 x MAD (1.4826 x MAD estimates a standard deviation robustly),
    min_change x |median| (so a perfectly steady history, MAD 0, does not make a small change an
    anomaly) and an absolute floor: 1 point of quarantine rate (0.01) or 10 rows.

    settings  [{entity, incremental, window, min_history, sensitivity_x100, min_change_bp}], numbers
              the compiler computed; an entity without settings is not in the view. -#}
{% macro quality_drift(mart, settings) -%}
  {{ return(adapter.dispatch('quality_drift', 'bloomery')(mart, settings)) }}
{%- endmacro %}

{% macro default__quality_drift(mart, settings) -%}
  {%- set f = dbt.type_float() -%}
  {%- set s = bloomery.type_name({'name': 'string'}) -%}
  {%- set i = bloomery.type_name({'name': 'int'}) -%}
  {%- set rows = [] -%}
  {%- for e in settings -%}
    {%- do rows.append("select " ~ bloomery.string_literal(e.entity) ~ " as entity, " ~ (1 if e.incremental else 0)
        ~ " as incremental, " ~ (e.window | int) ~ " as window_runs, " ~ (e.min_history | int) ~ " as min_history, "
        ~ (e.sensitivity_x100 | int) ~ " as sensitivity_x100, " ~ (e.min_change_bp | int) ~ " as min_change_bp") -%}
  {%- endfor %}
with settings as (
  {{ rows | join('\n  union all\n  ') }}
),
runs as (
  select entity, run_id, min(run_date) as run_date, min(run_started_at) as run_started_at,
    sum(rows_evaluated) as rows_evaluated, sum(rows_quarantined) as rows_quarantined, sum(rows_deduped) as rows_deduped
  from {{ mart }}
  where rule = '(entity)'
  group by entity, run_id
),
ordered as (
  select runs.*,
    row_number() over (partition by entity order by run_date, run_started_at nulls first, run_id) as run_number,
    count(*) over (partition by entity) as runs_total,
    coalesce(lag(rows_quarantined) over (partition by entity order by run_date, run_started_at nulls first, run_id), 0)
      as previous_quarantined,
    coalesce(lag(rows_evaluated + rows_deduped) over (partition by entity order by run_date, run_started_at nulls first, run_id), 0)
      as previous_accounted
  from runs
),
levels as (
  {#- the rate of what the run judged: for an incremental entity, the rejects it added over the rows
      it added (none when it added no row); else the state's rate #}
  select o.entity, o.run_id, o.run_number, 'quarantine_rate' as metric, '(entity)' as rule, 0 as cumulative,
    case when st.incremental = 1 then
           case when o.rows_evaluated + o.rows_deduped - o.previous_accounted <= 0 then null
                else cast(o.rows_quarantined - o.previous_quarantined as {{ f }})
                     / (o.rows_evaluated + o.rows_deduped - o.previous_accounted) end
         when o.rows_evaluated = 0 then null
         else cast(o.rows_quarantined as {{ f }}) / o.rows_evaluated end as level
  from ordered as o join settings as st on st.entity = o.entity
  union all
  select o.entity, o.run_id, o.run_number, 'volume', '(entity)', st.incremental,
    cast(o.rows_evaluated + o.rows_deduped as {{ f }})
  from ordered as o join settings as st on st.entity = o.entity
  union all
  select o.entity, o.run_id, o.run_number, 'rule', m.rule, st.incremental, cast(sum(m.rows_failed) as {{ f }})
  from {{ mart }} as m
  join ordered as o on o.entity = m.entity and o.run_id = m.run_id
  join settings as st on st.entity = m.entity
  where m.rule <> '(entity)'
  group by o.entity, o.run_id, o.run_number, m.rule, st.incremental
),
valued as (
  select entity, run_id, run_number, metric, rule,
    case when cumulative = 1
         then level - coalesce(lag(level) over (partition by entity, metric, rule order by run_number), 0)
         else level end as metric_value
  from levels
),
baseline as (
  select t.entity, t.metric, t.rule, t.run_number, b.metric_value
  from valued as t
  join settings as st on st.entity = t.entity
  join valued as b
    on b.entity = t.entity and b.metric = t.metric and b.rule = t.rule
   and b.run_number < t.run_number and b.run_number >= t.run_number - st.window_runs
  where b.metric_value is not null
),
medians as (
  select entity, metric, rule, run_number, count(*) as baseline_runs,
    {{ bloomery.median('metric_value') }} as baseline_median
  from baseline
  group by entity, metric, rule, run_number
),
mads as (
  select b.entity, b.metric, b.rule, b.run_number,
    {{ bloomery.median('abs(b.metric_value - m.baseline_median)') }} as baseline_mad
  from baseline as b
  join medians as m on m.entity = b.entity and m.metric = b.metric and m.rule = b.rule and m.run_number = b.run_number
  group by b.entity, b.metric, b.rule, b.run_number
),
banded as (
  select v.entity, v.metric, v.rule, v.run_id, v.run_number, v.metric_value,
    cast(coalesce(m.baseline_runs, 0) as {{ i }}) as baseline_runs,
    m.baseline_median, d.baseline_mad,
    greatest(st.sensitivity_x100 / 100.0 * 1.4826 * d.baseline_mad,
             st.min_change_bp / 10000.0 * abs(m.baseline_median),
             case when v.metric = 'quarantine_rate' then 0.01 else 10 end) as band,
    coalesce(m.baseline_runs, 0) >= st.min_history as judged
  from valued as v
  join settings as st on st.entity = v.entity
  left join medians as m on m.entity = v.entity and m.metric = v.metric and m.rule = v.rule and m.run_number = v.run_number
  left join mads as d on d.entity = v.entity and d.metric = v.metric and d.rule = v.rule and d.run_number = v.run_number
)
select
  cast(b.entity as {{ s }}) as entity,
  cast(b.metric as {{ s }}) as metric,
  cast(b.rule as {{ s }}) as rule,
  cast(b.run_id as {{ s }}) as run_id,
  o.run_date,
  o.run_started_at,
  cast(b.run_number as {{ i }}) as run_number,
  b.run_number = o.runs_total as is_latest,
  cast(b.metric_value as {{ f }}) as metric_value,
  b.baseline_runs,
  cast(b.baseline_median as {{ f }}) as baseline_median,
  cast(b.baseline_mad as {{ f }}) as baseline_mad,
  cast(b.band as {{ f }}) as band,
  b.judged,
  coalesce(b.judged and b.metric_value is not null
           and (b.metric_value - b.baseline_median > b.band
                or (b.metric = 'volume' and b.baseline_median - b.metric_value > b.band)), false) as out_of_band
from banded as b
join ordered as o on o.entity = b.entity and o.run_id = b.run_id
{%- endmacro %}
