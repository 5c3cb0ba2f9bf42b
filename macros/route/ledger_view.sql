{#- `<entity>__ledger` of a type 1 entity: the entity's judged rows as 'keep' (no content digest:
    the entity does not publish one, so a kept identity is matched by identity alone, like a
    ledger row from before `content_hash`), and the rest table. An entity row whose delivery the
    rest table records as diverted (quarantine, expired) was admitted by replay: its verdict is
    the rest table's, and the conservation audit matches it to its resolved reject row.
    `source`: the bronze relation's name (a literal the compiler wrote), or none for a merged entity,
    whose rows carry it in `_source`. -#}
{% macro ledger_view(entity, source=none) -%}
  {%- set q = adapter.quote -%}
  {%- set rest = bloomery.ledger_rest(entity) -%}
  {%- set s = bloomery.type_name({'name': 'string'}) -%}
  {%- set src -%}{% if source is none %}e.{{ q('_source') }}{% else %}{{ bloomery.string_literal(source) }}{% endif %}{%- endset -%}
select {% for c in bloomery._ledger_columns() %}r.{{ q(c) }}{{ ", " if not loop.last }}{% endfor %}
from {{ rest }} as r
union all
select {{ src }}, e.{{ q('_source_row_id') }}, e.{{ q('_load_id') }}, e.{{ q('_ingested_at') }},
  cast(null as {{ s }}), 'keep', null, cast(null as {{ s }})
from {{ entity }} as e
where e.{{ q('_source_row_id') }} is not null
  and not exists (
    select 1 from {{ rest }} as d
    where d.{{ q('route') }} in ('quarantine', 'expired')
      and d.{{ q('source_relation') }} = {{ src }}
      and d.{{ q('_source_row_id') }} = e.{{ q('_source_row_id') }}
      and d.{{ q('_load_id') }} = e.{{ q('_load_id') }}
      and d.{{ q('_ingested_at') }} = e.{{ q('_ingested_at') }}
  )
{%- endmacro %}

{#- The entity's ledger, to read before this run's entity node: none when there is none, or when it
    is the view and its rest table is gone (dropped by hand: the view would fail to read, and the
    entity's pre-hook creates the table again, so the build judges all of bronze, as without a
    ledger). -#}
{% macro _readable_ledger(database, schema, entity_name) -%}
  {%- set ledger = adapter.get_relation(database=database, schema=schema, identifier=entity_name ~ '__ledger') -%}
  {%- if ledger is not none and ledger.is_view
        and adapter.get_relation(database=database, schema=schema, identifier=entity_name ~ '__ledger_rest') is none -%}
    {{ return(none) }}
  {%- endif -%}
  {{ return(ledger) }}
{%- endmacro %}
