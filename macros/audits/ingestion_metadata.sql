{#- Blocking audit on `<entity>__staged`: ingestion metadata is what dedupe, replay and
    conservation stand on, and only the data can break it. Returns the offending rows with the
    reason; any row stops the entity, its reject table and the mart from being published. -#}
{% test bloomery_ingestion_metadata(model) %}
  {%- set q = adapter.quote -%}
  {%- set ts = bloomery.safe_cast('s.' ~ q('_ingested_at'), {'name': 'timestamp'}) -%}
{#- NULL and uncastable metadata is checked on every row of this run's extract, dedupe's losers
    included (a NULL `_ingested_at` sorts last and would otherwise lose quietly); a repeated
    source row id only among the survivors, because a re-delivery of one source row in a later
    load is no fault: two keys claiming it are. The claimed ids are an aggregate rather than a
    window over every row, so only the few ids claimed twice reach the join. A source row is
    identified within its bronze relation: a merged entity's relations may reuse an id. #}
with claims as (
  select {{ q('_bloomery_source') }}, {{ q('_source_row_id') }}, count(*) as source_row_claims
  from {{ model }}
  where {{ q('_bloomery_route') }} <> 'deduped'
  group by {{ q('_bloomery_source') }}, {{ q('_source_row_id') }}
  having count(*) > 1
)
select
  case
    when s.{{ q('_load_id') }} is null then '_load_id is null'
    when s.{{ q('_ingested_at') }} is null then '_ingested_at is null'
    when s.{{ q('_source_row_id') }} is null then '_source_row_id is null'
    when {{ ts }} is null then '_ingested_at does not cast to timestamp'
    else '_source_row_id claimed by ' || cast(c.source_row_claims as {{ bloomery.type_name({'name': 'string'}) }}) || ' keys'
  end as problem,
  s.{{ q('_source_row_id') }}, s.{{ q('_load_id') }}, s.{{ q('_ingested_at') }}
from {{ model }} as s
left join claims as c
  on c.{{ q('_source_row_id') }} = s.{{ q('_source_row_id') }} and c.{{ q('_bloomery_source') }} = s.{{ q('_bloomery_source') }}
     and s.{{ q('_bloomery_route') }} <> 'deduped'
where s.{{ q('_load_id') }} is null
   or s.{{ q('_ingested_at') }} is null
   or s.{{ q('_source_row_id') }} is null
   or {{ ts }} is null
   or c.source_row_claims is not null
{% endtest %}
