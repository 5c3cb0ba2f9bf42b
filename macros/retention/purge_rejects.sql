{#- Retention is the only deleter. A reject row is purged once it is older than the entity's
    `quarantine.retention`, measured from when the source last delivered it (`last_seen`) or,
    once resolved, from `resolved_at`: what the reject table holds is raw source payload, and
    keeping it longer than declared is the problem retention exists to prevent.

    Runs as a post-hook of every `<entity>__reject` build, and on demand:
      dbt run-operation bloomery.purge_rejects --args '{entity: order}'
    The clock is the run's start time; the var `bloomery_now` ('YYYY-MM-DD HH:MM:SS') replaces
    it, for backfills and tests.

    As a post-hook it spares the rows the build has just diverted (`fresh`: the staged model):
    bronze delivered long ago and judged for the first time must still be in the reject table
    when the run ends, or the run would account for a row it no longer holds. They age out from
    the next run on. -#}
{% macro purge_expired(retention_hours, relation=none, fresh=none) -%}
  {{ return(adapter.dispatch('purge_expired', 'bloomery')(retention_hours, relation, fresh)) }}
{%- endmacro %}

{% macro default__purge_expired(retention_hours, relation, fresh) -%}
  {%- set target_relation = relation if relation is not none else this -%}
  {%- set expired = bloomery._expired(target_relation, retention_hours, fresh) -%}
  {%- if execute -%}{%- do bloomery.ledger_record_expired(target_relation, expired) -%}{%- endif -%}
delete from {{ target_relation }}
where {{ expired }}
{%- endmacro %}

{#- The reject rows retention deletes, as a condition on `relation` (the reject table). -#}
{% macro _expired(relation, retention_hours, fresh=none) -%}
  {%- set q = adapter.quote -%}
  {%- set cutoff = bloomery.clock() - modules.datetime.timedelta(hours=retention_hours) -%}
  {%- set ts = bloomery.type_name({'name': 'timestamp'}) -%}
  coalesce({{ relation }}.{{ q('resolved_at') }}, {{ relation }}.{{ q('last_seen') }}) < cast({{ bloomery.string_literal(cutoff.strftime('%Y-%m-%d %H:%M:%S')) }} as {{ ts }})
  {%- if fresh is not none %}
  and not exists (
    select 1 from {{ fresh }} as f
    where f.{{ q('_bloomery_route') }} in ('quarantine', 'held') and f.{{ q('_source_row_id') }} = {{ relation }}.{{ q('_source_row_id') }}
      and f.{{ q('_bloomery_source') }} = {{ relation }}.{{ q('source_relation') }}
  )
  {%- endif %}
{%- endmacro %}

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

{% macro purge_rejects(entity) -%}
  {%- if not execute -%}{{ return(none) }}{%- endif -%}
  {%- set node = bloomery._node(entity ~ '__reject') -%}
  {%- set relation = bloomery._relation(entity ~ '__reject') -%}
  {%- if node is none or relation is none -%}
    {{ exceptions.raise_compiler_error("bloomery.purge_rejects: no built reject table for entity '" ~ entity ~ "'; run `bloomery compile` and `dbt build` first.") }}
  {%- endif -%}
  {%- set hours = node.config.meta.bloomery.quarantine.retention_hours -%}
  {%- set before = run_query('select count(*) from ' ~ relation).columns[0].values()[0] -%}
  {#- an engine without DELETE does the purge itself and renders no statement -#}
  {%- set purge = bloomery.purge_expired(hours, relation) -%}
  {%- if purge | trim -%}{%- call statement('purge') -%}{{ purge }}{%- endcall -%}{%- endif -%}
  {%- set after = run_query('select count(*) from ' ~ relation).columns[0].values()[0] -%}
  {%- do bloomery.end_transaction('purge_commit') -%}
  {{ log("bloomery.purge_rejects " ~ entity ~ ": " ~ (before - after) ~ " reject row(s) older than " ~ node.config.meta.bloomery.quarantine.retention ~ " deleted", info=true) }}
  {{ return(before - after) }}
{%- endmacro %}

{#- The clock retention is measured against. -#}
{% macro clock() -%}
  {%- set override = var('bloomery_now', none) -%}
  {%- if override -%}{{ return(modules.datetime.datetime.strptime(override, '%Y-%m-%d %H:%M:%S')) }}{%- endif -%}
  {{ return(run_started_at.replace(tzinfo=none)) }}
{%- endmacro %}
