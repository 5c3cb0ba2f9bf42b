{#- Blocking audit on `<entity>__staged`: ingestion metadata is what dedupe, replay and
    conservation stand on, and only the data can break it. Returns the offending rows with the
    reason; any row stops the entity, its reject table and the mart from being published. -#}
{% test bloomery_ingestion_metadata(model) %}
  {%- set q = adapter.quote -%}
  {%- set ts = bloomery.safe_cast('s.' ~ q('_ingested_at'), {'name': 'timestamp'}) -%}
with survivors as (
  select {{ q('_source_row_id') }}, {{ q('_load_id') }}, {{ q('_ingested_at') }}
  from {{ model }}
  where {{ q('_bloomery_route') }} <> 'deduped'
),
{#- an aggregate of the claimed ids rather than a window over every row: only the few ids
    claimed twice are carried to the join #}
claims as (
  select {{ q('_source_row_id') }}, count(*) as source_row_claims
  from survivors
  group by {{ q('_source_row_id') }}
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
from survivors as s
left join claims as c on c.{{ q('_source_row_id') }} = s.{{ q('_source_row_id') }}
where s.{{ q('_load_id') }} is null
   or s.{{ q('_ingested_at') }} is null
   or s.{{ q('_source_row_id') }} is null
   or {{ ts }} is null
   or c.source_row_claims is not null
{% endtest %}
