{#- Blocking audit on `<entity>__staged`: ingestion metadata is what dedupe, replay and
    conservation stand on, and only the data can break it. Returns the offending rows with the
    reason; any row stops the entity, its reject table and the mart from being published. -#}
{% test bloomery_ingestion_metadata(model) %}
  {%- set q = adapter.quote -%}
  {%- set ts = bloomery.safe_cast(q('_ingested_at'), {'name': 'timestamp'}) -%}
with judged as (
  select
    {{ q('_source_row_id') }}, {{ q('_load_id') }}, {{ q('_ingested_at') }},
    count(*) over (partition by {{ q('_source_row_id') }}) as source_row_claims
  from {{ model }}
  where {{ q('_bloomery_route') }} <> 'deduped'
)
select
  case
    when {{ q('_load_id') }} is null then '_load_id is null'
    when {{ q('_ingested_at') }} is null then '_ingested_at is null'
    when {{ q('_source_row_id') }} is null then '_source_row_id is null'
    when {{ ts }} is null then '_ingested_at does not cast to timestamp'
    else '_source_row_id claimed by ' || cast(source_row_claims as {{ bloomery.type_name({'name': 'string'}) }}) || ' keys'
  end as problem,
  {{ q('_source_row_id') }}, {{ q('_load_id') }}, {{ q('_ingested_at') }}
from judged
where {{ q('_load_id') }} is null
   or {{ q('_ingested_at') }} is null
   or {{ q('_source_row_id') }} is null
   or {{ ts }} is null
   or source_row_claims > 1
{% endtest %}
