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
