{#- `<entity>_quarantine_rate`, on `<entity>__quality`: the entity's quarantine rate in dbt's
    own output. Without it a build that diverts 9 rows of 12 prints PASS everywhere, since
    quarantine diverts rows and stops nothing; this test makes the share of rows held in quarantine
    a WARN or an ERROR that dbt prints and run_results.json records.

    Its results are rows, as every dbt test's are: the rows held in quarantine (the reject table's
    unresolved rows), so `Got 3 results` means three rows. Each carries the rate as the quality
    mart records it for a run (unresolved rejects over entity rows plus unresolved rejects, counted
    by the macro of `<entity>__quality`, so a `dbt test` in a later invocation judges the tables as
    they stand; not read from that view, which PostgreSQL drops with a table it reads when a
    selected build replaces the table, and an eager selection still runs this test)
    and whether it is above each threshold, a column named by the threshold in percent
    (`quarantined_above_10pct`). The YAML's `warn_if` / `error_if` read that column, so dbt's line
    says what was crossed: `Got 3 results, configured to fail if >0 and max(quarantined_above_10pct) = 1`.
    The comparison is exact, on integers: rate > t (basis points, 100 = 1%) is
    quarantined * 10000 > t * evaluated. `above`: {column: threshold in basis points}, integers and
    names the compiler wrote (emit/mart.py), never spec text. -#}
{% test bloomery_quarantine_rate(model, entity, kept, reject, above, scd='type1', unknown_member=none) %}
  {%- set name, scd, member = bloomery.argument(entity), bloomery.argument(scd), bloomery.argument(unknown_member) -%}
  {%- set q = adapter.quote -%}
  {%- set i = bloomery.type_name({'name': 'int'}) -%}
  {%- set exact = bloomery.type_name({'name': 'decimal', 'precision': 38, 'scale': 10}) -%}
  {%- set d = bloomery.type_name({'name': 'decimal', 'precision': 5, 'scale': 2}) -%}
  {%- set counts = bloomery.quality_counts([{'entity': name, 'mapping': name, 'scd': scd, 'unknown_member': member,
                                             'rules': [], 'kept': kept, 'reject': reject, 'ledger': none}]) -%}
with accounting as (
  select cast(sum(rows_quarantined) as {{ i }}) as rows_quarantined, cast(sum(rows_evaluated) as {{ i }}) as rows_evaluated
  from ({{ counts }}) as counts
  where rule = '(entity)'
)
select
  {{ bloomery.string_literal(name) }} as entity,
  r.{{ q('reject_id') }},
  r.{{ q('source_relation') }},
  r.{{ q('_source_row_id') }},
  r.{{ q('failed_rules') }},
  a.rows_quarantined,
  a.rows_evaluated,
  cast(round(cast(a.rows_quarantined as {{ exact }}) * 100 / a.rows_evaluated, 2) as {{ d }}) as quarantined_percent
  {%- for column, bp in bloomery.argument(above).items() %}
  {%- if not modules.re.fullmatch('[a-z0-9_]+', column) %}{% do exceptions.raise_compiler_error('bloomery: not a threshold column: ' ~ column) %}{% endif %},
  {#- unquoted, as warn_if / error_if name it: a name of [a-z0-9_] the compiler made, which an
      engine that folds unquoted names (Snowflake) must fold alike in both #}
  case when a.rows_quarantined * 10000 > {{ bp | int }} * a.rows_evaluated then 1 else 0 end as {{ column }}
  {%- endfor %}
from {{ reject }} as r
cross join accounting as a
where r.{{ q('resolved_at') }} is null
  and a.rows_evaluated > 0
{% endtest %}

