{#- `<entity>__quality`: how the entity's rows stand judged now, one row per counted thing, and
    `mart_data_quality`: the history of those rows, one snapshot per run.

    Per entity, one accounting row (rule = disposition = '(entity)') carries the population
    counts — rows_evaluated (entity rows plus unresolved rejects), rows_quarantined and
    rows_deduped — and one row per rule carries rows_failed, with zero in the population
    columns. So every count is additive across entities and rules within a run. All rule
    counts come from one aggregate over the rows that fired something. Every count is a count
    of rows where they are: rows_deduped counts the deliveries the ledger records as having lost
    a dedupe contest, never a difference (a row unaccounted for is the conservation audit's
    finding, not a duplicate).

    Why a view per entity and a post-hook, not one model over every entity: a model that read
    every entity would be skipped when any one entity's build fails, and with it every other
    entity's snapshot and the quality tests that hang on it. Each `<entity>__quality` reads only
    its own entity, its post-hook (mart_record) appends its rows to the mart, and the mart reads
    no entity, so one entity's failure stops only that entity's snapshot.

    entities  [{entity, mapping, rules: [[name, disposition], ...], kept, reject, ledger, source}]
              where kept / reject / ledger are relations (reject and ledger may be none: no
              quarantine, no ingestion metadata). A merged entity
              has one item per mapping, whose `source` (its bronze relation) selects that
              mapping's rows of the entity (`_source`) and of the reject table, so its counts
              add up to the entity's; `source` is absent for a single-mapping entity.
    reconcile [{name, entity, mapping, on_fail, model}]: one row each, on the left side's entity,
              rows_failed = keys not within tolerance. -#}
{% macro quality_counts(entities, reconcile=[]) -%}
  {{ return(adapter.dispatch('quality_counts', 'bloomery')(entities, reconcile)) }}
{%- endmacro %}

{% macro default__quality_counts(entities, reconcile) -%}
  {%- set q = adapter.quote -%}
  {%- set s = bloomery.type_name({'name': 'string'}) -%}
  {%- set i = bloomery.type_name({'name': 'int'}) -%}
with run_context as (select 1 as one)
{%- for e in entities %}
{%- set n = loop.index0 %}
{%- set kept_rows -%}
  {{ e.kept }}
  where 1 = 1
  {%- if e.get('unknown_member') %}
  {#- the reserved Unknown member is no bronze row #}
    and {{ bloomery.not_the_unknown_member(q(e.unknown_member)) }}
  {%- endif %}
  {%- if e.get('scd') == 'type2' %}
    and dbt_valid_to is null
  {%- endif %}
  {%- if e.get('source') %}
    and {{ q('_source') }} = {{ bloomery.string_literal(e.source) }}
  {%- endif %}
{%- endset %}
{%- set open_rejects -%}
  {{ e.reject }} where {{ q('resolved_at') }} is null
  {%- if e.get('source') %} and {{ q('source_relation') }} = {{ bloomery.string_literal(e.source) }}{% endif %}
{%- endset %},
{#- the rule counts read only the rows that fired something (a reject always has): most kept
    rows fire nothing, and every rule's test over them would find nothing #}
flagged_{{ n }} as (
  select {{ q('_quality_flags') }} as names from {{ kept_rows }}
    and {{ bloomery.flags_size(q('_quality_flags')) }} > 0
  {%- if e.reject %}
  union all
  select {{ q('failed_rules') }} from {{ open_rejects }}
  {%- endif %}
),
counts_{{ n }} as (
  select
    (select count(*) from {{ kept_rows }}) as rows_kept,
    {%- if e.reject %}
    (select count(*) from {{ open_rejects }}) as rows_quarantined,
    {%- else %}
    0 as rows_quarantined,
    {%- endif %}
    {%- if e.ledger %}
    (select count(*) from {{ e.ledger }} where {{ q('route') }} = 'deduped'
      {%- if e.get('source') %} and {{ q('source_relation') }} = {{ bloomery.string_literal(e.source) }}{% endif %}) as rows_deduped
    {%- else %}
    0 as rows_deduped
    {%- endif %}
    {%- if e.rules %},
    failures.*
  from ({{ bloomery.rule_failures('flagged_' ~ n, e.rules | map(attribute=0) | list) }}) as failures
    {%- endif %}
)
{%- endfor %}
{%- set rows = [] %}
{%- for e in entities %}
  {%- set n = loop.index0 %}
  {%- do rows.append("select " ~ bloomery.string_literal(e.entity) ~ " as entity, " ~ bloomery.string_literal(e.mapping)
      ~ " as mapping, '(entity)' as rule, '(entity)' as disposition, rows_kept + rows_quarantined as rows_evaluated, 0 as rows_failed, rows_quarantined, "
      ~ "rows_deduped from counts_" ~ n) %}
  {%- for r in e.rules %}
  {%- do rows.append("select " ~ bloomery.string_literal(e.entity) ~ ", " ~ bloomery.string_literal(e.mapping) ~ ", "
      ~ bloomery.string_literal(r[0]) ~ ", " ~ bloomery.string_literal(r[1]) ~ ", 0, " ~ q('failed_' ~ loop.index0)
      ~ ", 0, 0 from counts_" ~ n) %}
  {%- endfor %}
{%- endfor %}
{%- for c in reconcile %}
  {%- do rows.append("select " ~ bloomery.string_literal(c.entity) ~ " as entity, " ~ bloomery.string_literal(c.mapping)
      ~ " as mapping, " ~ bloomery.string_literal(c.name) ~ " as rule, " ~ bloomery.string_literal(c.on_fail)
      ~ " as disposition, 0 as rows_evaluated, (select count(*) from " ~ c.model ~ " where not within_tolerance) as rows_failed,"
      ~ " 0 as rows_quarantined, 0 as rows_deduped") %}
{%- endfor %}

, judged as (
  {{ rows | join('\n  union all\n  ') }}
)
select
  cast(entity as {{ s }}) as entity,
  cast(mapping as {{ s }}) as mapping,
  cast(rule as {{ s }}) as rule,
  cast(disposition as {{ s }}) as disposition,
  cast(rows_evaluated as {{ i }}) as rows_evaluated,
  cast(rows_failed as {{ i }}) as rows_failed,
  cast(rows_quarantined as {{ i }}) as rows_quarantined,
  cast(rows_deduped as {{ i }}) as rows_deduped
from judged
{%- endmacro %}
