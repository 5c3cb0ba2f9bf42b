{#- Before retention deletes reject rows, the entity's ledger records their deliveries as
    'expired': the conservation audit then accounts for a purged row as purged, where a reject row
    missing for any other reason is a loss. `reject` is `<entity>__reject`; `expired` the condition
    on it (`_expired`). No ledger (an entity built before it existed): nothing to record. -#}
{% macro ledger_record_expired(reject, expired) -%}
  {%- set ledger = adapter.get_relation(database=reject.database, schema=reject.schema,
                                        identifier=reject.identifier[:-('__reject' | length)] ~ '__ledger') -%}
  {%- if ledger is none -%}{{ return('') }}{%- endif -%}
  {%- set q = adapter.quote -%}
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
