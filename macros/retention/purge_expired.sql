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
