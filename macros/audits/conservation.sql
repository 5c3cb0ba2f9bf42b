{#- Blocking audit on `<entity>`: the conservation law for this run. Every survivor of dedupe
    is in the entity or in the reject table (unresolved), never both, never neither; returns one
    row with the counts when that does not hold. A type 2 entity is its snapshot: only current
    versions count. -#}
{% test bloomery_conservation(model, staged, reject, source, current_only=false) %}
  {%- set current_only = bloomery.argument(current_only) -%}
  {%- set q = adapter.quote -%}
with survivors as (
  select {{ q('_source_row_id') }}, {{ q('_bloomery_route') }} as route
  from {{ staged }}
  where {{ q('_bloomery_route') }} <> 'deduped'
),
counts as (
  select
    (select count(*) from {{ source }}) as bronze_rows,
    (select count(*) from {{ staged }}) as candidate_rows,
    (select count(*) from survivors) as surviving_rows,
    (select count(*) from survivors where route = 'quarantine') as diverted_rows,
    (select count(*) from {{ model }} as m
      where m.{{ q('_source_row_id') }} in (select {{ q('_source_row_id') }} from survivors)
      {%- if current_only %} and m.dbt_valid_to is null{% endif %}) as entity_rows,
    (select count(*) from {{ reject }} as r
      where r.{{ q('resolved_at') }} is null
        and r.{{ q('_source_row_id') }} in (select {{ q('_source_row_id') }} from survivors where route = 'quarantine')) as rejected_rows
)
select * from counts
where entity_rows + diverted_rows <> surviving_rows or rejected_rows <> diverted_rows
{% endtest %}
