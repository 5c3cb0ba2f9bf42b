{#- Before retention deletes reject rows, the entity's ledger (where its verdicts are written,
    `ledger_verdicts`: the rest table of a type 1 entity) records their deliveries as
    'expired': the conservation audit then accounts for a purged row as purged, where a reject row
    missing for any other reason is a loss. `reject` is `<entity>__reject`; `expired` the condition
    on it (`_expired`). No ledger (an entity built before it existed): nothing to record.
    In a type 1 entity's rest table, a purged reject row whose delivery has its entity row (replay
    admitted it) is no longer a diverted delivery: its rest row is removed, and the ledger records
    the delivery by its entity row, as kept (the view reads an entity row whose delivery is
    recorded as diverted as one replay admitted, which needs its reject row). -#}
{% macro ledger_record_expired(reject, expired) -%}
  {%- set name = reject.identifier[:-('__reject' | length)] -%}
  {%- set ledger = bloomery.ledger_verdicts(reject.database, reject.schema, name) -%}
  {%- if ledger is none -%}{{ return('') }}{%- endif -%}
  {%- set q = adapter.quote -%}
  {%- set entity = adapter.get_relation(database=reject.database, schema=reject.schema, identifier=name) -%}
  {%- if ledger.identifier == name ~ '__ledger_rest' and entity is not none -%}
    {%- set merged = '_source' in adapter.get_columns_in_relation(entity) | map(attribute='name') | map('lower') | list -%}
    {%- set admitted -%}
delete from {{ ledger }}
where {{ q('route') }} = 'quarantine'
  and exists (
    select 1 from {{ reject }}
    where {{ expired }} and {{ reject }}.{{ q('resolved_at') }} is not null
      and {{ reject }}.{{ q('_source_row_id') }} = {{ ledger }}.{{ q('_source_row_id') }}
      and {{ reject }}.{{ q('source_relation') }} = {{ ledger }}.{{ q('source_relation') }}
  )
  and exists (
    select 1 from {{ entity }} as e
    where e.{{ q('_source_row_id') }} = {{ ledger }}.{{ q('_source_row_id') }}
      and e.{{ q('_load_id') }} = {{ ledger }}.{{ q('_load_id') }}
      and e.{{ q('_ingested_at') }} = {{ ledger }}.{{ q('_ingested_at') }}
      {%- if merged %}
      and e.{{ q('_source') }} = {{ ledger }}.{{ q('source_relation') }}
      {%- endif %}
  )
    {%- endset -%}
    {%- do run_query(admitted) -%}
  {%- endif -%}
  {%- set sql -%}
update {{ ledger }}
set {{ q('route') }} = 'expired'
where {{ q('route') }} = 'quarantine'
  and exists (
    select 1 from {{ reject }}
    where {{ expired }}
      and {{ reject }}.{{ q('_source_row_id') }} = {{ ledger }}.{{ q('_source_row_id') }}
      and {{ reject }}.{{ q('source_relation') }} = {{ ledger }}.{{ q('source_relation') }}
  )
  {%- endset -%}
  {%- do run_query(sql) -%}
{%- endmacro %}
