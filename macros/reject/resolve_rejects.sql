{#- Post-hook: an unresolved reject row is resolved when the delivery it records was judged again
    in this run and is neither diverted again nor held: its key has a newer winner (a newer
    re-delivery of the row, for one), or a full refresh found that it passes now. Matching the
    delivery, not only the source row id, matters: a batch reaches a source row through a key it
    touches, and that row's diverted delivery, under another key, may not be in the batch.
    Nothing is deleted. `source_relation` is the entity's bronze relation, or the list of them
    for a merged entity, whose rows are matched by (bronze relation, source row id). -#}
{% macro resolve_rejects(source_relation, staged) -%}
  {{ return(adapter.dispatch('resolve_rejects', 'bloomery')(source_relation, staged)) }}
{%- endmacro %}

{% macro default__resolve_rejects(source_relation, staged) -%}
  {%- set q = adapter.quote -%}
  {%- set merged = source_relation is not string -%}
  {%- set same_row -%}
  s.{{ q('_source_row_id') }} = {{ this }}.{{ q('_source_row_id') }}
      {%- if merged %} and s.{{ q('_bloomery_source') }} = {{ this }}.{{ q('source_relation') }}{% endif %}
  {%- endset -%}
update {{ this }}
set {{ q('resolved_at') }} = {{ bloomery.run_timestamp() }}
where {{ q('resolved_at') }} is null
  {%- if not merged %}
  and {{ q('source_relation') }} = {{ bloomery.string_literal(source_relation) }}
  {%- endif %}
  and exists (
    select 1 from {{ staged }} as s
    where {{ same_row }}
      and s.{{ q('_load_id') }} = {{ this }}.{{ q('_load_id') }} and s.{{ q('_ingested_at') }} = {{ this }}.{{ q('_ingested_at') }}
  )
  {#- the same delivery may be in bronze twice (a load appended twice): one copy loses to the other #}
  and not exists (
    select 1 from {{ staged }} as s
    where s.{{ q('_bloomery_route') }} in ('quarantine', 'held') and {{ same_row }}
  )
{%- endmacro %}
