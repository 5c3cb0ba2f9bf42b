{#- Pre-hook of the ledger: forget the verdicts this run replaces. An incremental batch replaces
    the deliveries it judged again, one by one: it takes every delivery of a re-delivered source
    row, but a source row it reached through a key may have other deliveries, under keys it did
    not touch, whose verdicts stand. A build that judged all of bronze (`everything`: a `full` entity, a full
    refresh) replaces the whole ledger but the diverted deliveries bronze no longer holds: their
    reject rows are still to account for. The ledger is history (`full_refresh: false`) for that.
    A type 2 entity (`versions`) also keeps the kept verdicts of the deliveries bronze no longer
    holds: a snapshot deletes nothing, so their versions stay current until a newer delivery of
    the key replaces them, and the conservation audit matches them to those verdicts.
    `ledger`: the table holding the verdicts, `this` (a type 2 entity's ledger) unless given (the
    rest table a type 1 entity's own hook writes, ledger_rest.sql). -#}
{% macro ledger_forget_rejudged(staged, everything=false, versions=false, ledger=none) -%}
  {%- set ledger = ledger or this -%}
  {%- if not execute or load_relation(ledger) is none -%}{{ return('select 1') }}{%- endif -%}
  {{ return(bloomery._ledger_forget(staged, everything, versions, ledger)) }}
{%- endmacro %}

{#- the forgetting itself, of a `ledger` table known to exist (a table created by a hook this run is
    not in dbt's relation cache, which `load_relation` reads) -#}
{% macro _ledger_forget(staged, everything, versions, ledger) -%}
  {{ return(adapter.dispatch('ledger_forget_rejudged', 'bloomery')(staged, everything or flags.FULL_REFRESH, versions, ledger)) }}
{%- endmacro %}

{#- the routes a build that judged all of bronze does not forget, of the deliveries it did not judge -#}
{% macro _ledger_routes_kept(versions) -%}
  ('quarantine', 'expired'{% if versions %}, 'keep'{% endif %})
{%- endmacro %}

{% macro default__ledger_forget_rejudged(staged, everything, versions, ledger) -%}
  {%- set q = adapter.quote -%}
  {%- do bloomery._ledger_add_content(ledger) -%}
delete from {{ ledger }}
where {% if everything %}{{ q('route') }} not in {{ bloomery._ledger_routes_kept(versions) }} or {% endif %}exists (
  select 1 from {{ staged }} as s
  where s.{{ q('_source_row_id') }} = {{ ledger }}.{{ q('_source_row_id') }}
    and s.{{ q('_load_id') }} = {{ ledger }}.{{ q('_load_id') }}
    and s.{{ q('_ingested_at') }} = {{ ledger }}.{{ q('_ingested_at') }}
    and s.{{ q('_bloomery_source') }} = {{ ledger }}.{{ q('source_relation') }}
)
{%- endmacro %}

{#- A ledger built before deliveries carried their content gets `content_hash` (NULL on the
    deliveries it recorded before: those are matched by identity alone), so the one deliberate
    change of its schema needs no full refresh, which the ledger refuses (`full_refresh: false`);
    `on_schema_change` stays `fail` for anything else. -#}
{% macro _ledger_add_content(ledger) -%}
  {%- if execute -%}
    {%- set existing = load_relation(ledger) -%}
    {%- if existing is not none -%}
      {%- set names = adapter.get_columns_in_relation(existing) | map(attribute='name') | map('lower') | list -%}
      {%- if names and 'content_hash' not in names -%}
        {%- do alter_relation_add_remove_columns(existing, [api.Column.create('content_hash', bloomery.type_name({'name': 'string'}))], none) -%}
      {%- endif -%}
    {%- endif -%}
  {%- endif -%}
{%- endmacro %}
