{#- `<entity>_quarantine_rate`, on `quality_quarantine_rate`: the entity's quarantine rate in dbt's
    own output. Without it a build that diverts 9 rows of 12 prints PASS everywhere, since
    quarantine diverts rows and stops nothing; this test makes the share of rows held in quarantine
    a WARN or an ERROR that dbt prints and run_results.json records.

    The rate is the one the quality mart records for a run: unresolved rejects over entity rows
    plus unresolved rejects, counted by the mart's own macro (the entity's accounting rows, no rule
    counts), so it is the figure `quality_quarantine_rate` shows for this run, and a `dbt test` in
    a later invocation judges the tables as they stand rather than finding no snapshot of its own.

    It returns one row when the rate is above `warn_above_bp` (basis points: 100 = 1%; the
    comparison is exact, on integers) and none otherwise. dbt's `failures` (fail_calc below) is the
    rate in basis points rounded up, 0 when within warn_above, and the YAML's `warn_if` / `error_if`
    compare it with the thresholds: for a threshold of whole basis points, "rounded up > t" is
    exactly "rate > t". The thresholds reach SQL as integers the compiler computed, never as spec
    text. -#}
{% test bloomery_quarantine_rate(model, entity, kept, reject, warn_above_bp, error_above_bp=none, scd='type1', unknown_member=none) %}
  {{ config(fail_calc='coalesce(max(quarantine_rate_bp), 0)') }}
  {%- set name, scd, member = bloomery.argument(entity), bloomery.argument(scd), bloomery.argument(unknown_member) -%}
  {%- set warn = bloomery.argument(warn_above_bp) | int -%}
  {%- set error = bloomery.argument(error_above_bp) -%}
  {%- set i = bloomery.type_name({'name': 'int'}) -%}
  {%- set counts = bloomery.mart_data_quality([{'entity': name, 'mapping': name, 'scd': scd, 'unknown_member': member,
                                                'rules': [], 'kept': kept, 'reject': reject, 'ledger': none}]) -%}
with accounting as (
  select cast(sum(rows_quarantined) as {{ i }}) as rows_quarantined, cast(sum(rows_evaluated) as {{ i }}) as rows_evaluated
  from ({{ counts }}) as counts
  where rule = '(entity)'
),
scaled as (
  select rows_quarantined, rows_evaluated, rows_quarantined * 10000 as scaled_quarantined
  from accounting
  where rows_evaluated > 0
)
select
  {{ bloomery.string_literal(name) }} as entity,
  rows_quarantined,
  rows_evaluated,
  {#- ceil(scaled / evaluated) on integers: the quotient of an exact multiple is exact on every engine #}
  cast((scaled_quarantined - mod(scaled_quarantined, rows_evaluated)) / rows_evaluated as {{ i }})
    + case when mod(scaled_quarantined, rows_evaluated) = 0 then 0 else 1 end as quarantine_rate_bp,
  {{ warn }} as warn_above_bp,
  {%- if error is none %}
  cast(null as {{ i }}) as error_above_bp
  {%- else %}
  {{ error | int }} as error_above_bp
  {%- endif %}
from scaled
where scaled_quarantined > {{ warn }} * rows_evaluated
{% endtest %}
