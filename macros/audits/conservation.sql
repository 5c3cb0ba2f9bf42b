{#- Blocking audit on `<entity>`: the conservation law for this run. Every survivor of dedupe
    is in the entity or in the reject table (unresolved), never both, never neither; returns one
    row with the counts when that does not hold. A type 2 entity is its snapshot: only current
    versions count. A merged entity reads several bronze relations (`sources`), and its rows are
    identified by (bronze relation, source row id): two relations may reuse a source row id. -#}
{% test bloomery_conservation(model, staged, reject, source, current_only=false, sources=none, merged=false) %}
  {%- set current_only, merged = bloomery.argument(current_only), bloomery.argument(merged) -%}
  {%- set q = adapter.quote -%}
  {%- set bronze = sources if sources else [source] -%}
with survivors as (
  select {{ q('_source_row_id') }}, {{ q('_bloomery_source') }}, {{ q('_bloomery_route') }} as route
  from {{ staged }}
  where {{ q('_bloomery_route') }} <> 'deduped'
),
counts as (
  select
    ({% for b in bronze %}(select count(*) from {{ b }}){{ " + " if not loop.last }}{% endfor %}) as bronze_rows,
    (select count(*) from {{ staged }}) as candidate_rows,
    (select count(*) from survivors) as surviving_rows,
    (select count(*) from survivors where route = 'quarantine') as diverted_rows,
    (select count(*) from {{ model }} as m
    {%- if merged %}
      where exists (select 1 from survivors as s
                    where s.{{ q('_source_row_id') }} = m.{{ q('_source_row_id') }} and s.{{ q('_bloomery_source') }} = m.{{ q('_source') }})
    {%- else %}
      where m.{{ q('_source_row_id') }} in (select {{ q('_source_row_id') }} from survivors)
    {%- endif %}
      {%- if current_only %} and m.dbt_valid_to is null{% endif %}) as entity_rows,
    (select count(*) from {{ reject }} as r
      where r.{{ q('resolved_at') }} is null
    {%- if merged %}
        and exists (select 1 from survivors as s
                    where s.route = 'quarantine' and s.{{ q('_source_row_id') }} = r.{{ q('_source_row_id') }}
                      and s.{{ q('_bloomery_source') }} = r.{{ q('source_relation') }})) as rejected_rows
    {%- else %}
        and r.{{ q('_source_row_id') }} in (select {{ q('_source_row_id') }} from survivors where route = 'quarantine')) as rejected_rows
    {%- endif %}
)
select * from counts
where entity_rows + diverted_rows <> surviving_rows or rejected_rows <> diverted_rows
{% endtest %}
