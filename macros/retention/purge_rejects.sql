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
  {%- set q = adapter.quote -%}
  {%- set cutoff = bloomery.clock() - modules.datetime.timedelta(hours=retention_hours) -%}
  {%- set ts = bloomery.type_name({'name': 'timestamp'}) -%}
delete from {{ target_relation }}
where coalesce({{ q('resolved_at') }}, {{ q('last_seen') }}) < cast({{ bloomery.string_literal(cutoff.strftime('%Y-%m-%d %H:%M:%S')) }} as {{ ts }})
{%- if fresh is not none %}
  and not exists (
    select 1 from {{ fresh }} as f
    where f.{{ q('_bloomery_route') }} = 'quarantine' and f.{{ q('_source_row_id') }} = {{ target_relation }}.{{ q('_source_row_id') }}
      and f.{{ q('_bloomery_source') }} = {{ target_relation }}.{{ q('source_relation') }}
  )
{%- endif %}
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
