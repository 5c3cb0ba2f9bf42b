{#- `<entity>__ledger`: one row per bronze delivery judged so far, identified by
    (`source_relation`, `_source_row_id`, `_load_id`, `_ingested_at`) and its content
    (`content_hash`), with where its latest
    judging put it ('keep', 'quarantine' (held ones too), 'deduped'; 'expired' once retention
    deleted its reject row) and, for a deduped delivery, the
    source row it lost its key to (`winner_row_id`). An incremental run judges the deliveries it
    does not hold (`quality_split`'s `_in_batch`); the conservation audit proves every bronze row
    ends where its route says. -#}
{% macro ledger_rows(staged) -%}
  {{ return(adapter.dispatch('ledger_rows', 'bloomery')(staged)) }}
{%- endmacro %}

{% macro default__ledger_rows(staged) -%}
  {%- set q = adapter.quote -%}
select
  {{ q('_bloomery_source') }} as {{ q('source_relation') }},
  {{ q('_source_row_id') }},
  {{ q('_load_id') }},
  {{ q('_ingested_at') }},
  {#- what the delivery carried (`delivery_content`): the same identity with other content later is
      a loader reusing it, which the ingestion-metadata audit stops -#}
  {{ q('_bloomery_content') }} as {{ q('content_hash') }},
  {#- a held delivery is where a diverted one is: in the reject table #}
  case when {{ q('_bloomery_route') }} = 'held' then 'quarantine' else {{ q('_bloomery_route') }} end as {{ q('route') }},
  {{ q('_bloomery_winner') }} as {{ q('winner_row_id') }},
  {{ bloomery.string_literal(invocation_id) }} as {{ q('run_id') }}
from {{ staged }}
{%- endmacro %}
