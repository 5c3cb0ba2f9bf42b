{#- `<entity>__ledger`: one row per bronze delivery judged so far, identified by
    (`source_relation`, `_source_row_id`, `_load_id`, `_ingested_at`), with where its latest
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
  {#- a held delivery is where a diverted one is: in the reject table #}
  case when {{ q('_bloomery_route') }} = 'held' then 'quarantine' else {{ q('_bloomery_route') }} end as {{ q('route') }},
  {{ q('_bloomery_winner') }} as {{ q('winner_row_id') }},
  {{ bloomery.string_literal(invocation_id) }} as {{ q('run_id') }}
from {{ staged }}
{%- endmacro %}

{#- Pre-hook of the ledger: forget the verdicts this run replaces. An incremental batch replaces
    the deliveries it judged again, one by one: it takes every delivery of a re-delivered source
    row, but a source row it reached through a key may have other deliveries, under keys it did
    not touch, whose verdicts stand. A build that judged all of bronze (`everything`: a `full` entity, a full
    refresh) replaces the whole ledger but the diverted deliveries bronze no longer holds: their
    reject rows are still to account for. The ledger is history (`full_refresh: false`) for that. -#}
{% macro ledger_forget_rejudged(staged, everything=false) -%}
  {{ return(adapter.dispatch('ledger_forget_rejudged', 'bloomery')(staged, everything or flags.FULL_REFRESH)) }}
{%- endmacro %}

{% macro default__ledger_forget_rejudged(staged, everything) -%}
  {%- if not is_incremental() -%}select 1{%- else -%}
  {%- set q = adapter.quote -%}
delete from {{ this }}
where {% if everything %}{{ q('route') }} not in ('quarantine', 'expired') or {% endif %}exists (
  select 1 from {{ staged }} as s
  where s.{{ q('_source_row_id') }} = {{ this }}.{{ q('_source_row_id') }}
    and s.{{ q('_load_id') }} = {{ this }}.{{ q('_load_id') }}
    and s.{{ q('_ingested_at') }} = {{ this }}.{{ q('_ingested_at') }}
    and s.{{ q('_bloomery_source') }} = {{ this }}.{{ q('source_relation') }}
)
  {%- endif -%}
{%- endmacro %}
