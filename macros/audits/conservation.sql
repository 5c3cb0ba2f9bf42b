{#- Blocking audit on `<entity>__ledger`: the conservation law over all of bronze, not only this
    run's batch. Every bronze delivery is judged (in the ledger, by identity), and every judged
    delivery is where its route says:
      keep        its source row is in the entity (a type 2 entity: among current versions);
      quarantine, held
                  its source row has a reject row (unresolved, or resolved by replay or a
                  supersession: the reject row is the record);
      deduped     it names the source row it lost its key to, and that row is judged and not
                  itself deduped;
      expired     its reject row was deleted by retention (recorded by the purge).
    And the other way round: an entity row has a 'keep' verdict or a resolved reject row (replay
    admits rows from the reject table), and an unresolved reject row has a diverted or held delivery.
    Returns one row per violation, with the row's identity and what is wrong.

    `names` lists the bronze relations' names (inert JSON, spec text), `sources` the relations in
    the same order; `merged`: the entity's rows carry `_source` (several bronze relations). -#}
{% test bloomery_conservation(model, entity, sources, names, reject=none, current_only=false, merged=false) %}
  {%- set names, current_only, merged = bloomery.argument(names), bloomery.argument(current_only), bloomery.argument(merged) -%}
  {%- set q = adapter.quote -%}
  {%- set srid, src = q('_source_row_id'), q('source_relation') -%}
  {%- set s = bloomery.type_name({'name': 'string'}) -%}
with bronze as (
  {%- for b in sources %}
  select {{ bloomery.string_literal(names[loop.index0]) }} as {{ src }},
         cast({{ srid }} as {{ s }}) as {{ srid }}, cast({{ q('_load_id') }} as {{ s }}) as {{ q('_load_id') }},
         cast({{ q('_ingested_at') }} as {{ s }}) as {{ q('_ingested_at') }}
  from {{ b }}
  {%- if not loop.last %}
  union all
  {%- endif %}
  {%- endfor %}
),
ledger as (
  select {{ src }}, cast({{ srid }} as {{ s }}) as {{ srid }}, cast({{ q('_load_id') }} as {{ s }}) as {{ q('_load_id') }},
         cast({{ q('_ingested_at') }} as {{ s }}) as {{ q('_ingested_at') }}, {{ q('route') }},
         cast({{ q('winner_row_id') }} as {{ s }}) as {{ q('winner_row_id') }}
  from {{ model }}
),
published as (
  select {% if merged %}{{ q('_source') }}{% else %}{{ bloomery.string_literal(names[0]) }}{% endif %} as {{ src }},
         cast({{ srid }} as {{ s }}) as {{ srid }}
  from {{ entity }}
  where {{ srid }} is not null{% if current_only %} and dbt_valid_to is null{% endif %}
),
{%- if reject is not none %}
rejected as (
  select {{ src }}, cast({{ srid }} as {{ s }}) as {{ srid }}, {{ q('resolved_at') }} is null as unresolved
  from {{ reject }}
),
{%- endif %}
violations as (
  select b.{{ src }}, b.{{ srid }}, b.{{ q('_load_id') }}, b.{{ q('_ingested_at') }}, 'bronze row never judged' as problem
  from bronze as b
  where not exists (
    select 1 from ledger as l
    where l.{{ src }} = b.{{ src }} and l.{{ srid }} = b.{{ srid }}
      and l.{{ q('_load_id') }} = b.{{ q('_load_id') }} and l.{{ q('_ingested_at') }} = b.{{ q('_ingested_at') }}
  )
  union all
  select l.{{ src }}, l.{{ srid }}, l.{{ q('_load_id') }}, l.{{ q('_ingested_at') }}, 'kept but not in the entity'
  from ledger as l
  where l.{{ q('route') }} = 'keep'
    and not exists (select 1 from published as p where p.{{ src }} = l.{{ src }} and p.{{ srid }} = l.{{ srid }})
  union all
  select l.{{ src }}, l.{{ srid }}, l.{{ q('_load_id') }}, l.{{ q('_ingested_at') }}, 'deduped without a judged winner'
  from ledger as l
  where l.{{ q('route') }} = 'deduped'
    and not exists (select 1 from ledger as w
                    where w.{{ srid }} = l.{{ q('winner_row_id') }} and w.{{ q('route') }} <> 'deduped')
  union all
  select p.{{ src }}, p.{{ srid }}, null, null, 'in the entity without a keep verdict'
  from published as p
  where not exists (select 1 from ledger as l
                    where l.{{ src }} = p.{{ src }} and l.{{ srid }} = p.{{ srid }} and l.{{ q('route') }} = 'keep')
  {%- if reject is not none %}
    and not exists (select 1 from rejected as r
                    where r.{{ src }} = p.{{ src }} and r.{{ srid }} = p.{{ srid }} and not r.unresolved)
  union all
  select l.{{ src }}, l.{{ srid }}, l.{{ q('_load_id') }}, l.{{ q('_ingested_at') }}, 'diverted but not in the reject table'
  from ledger as l
  where l.{{ q('route') }} in ('quarantine', 'held')
    and not exists (select 1 from rejected as r where r.{{ src }} = l.{{ src }} and r.{{ srid }} = l.{{ srid }})
  union all
  select r.{{ src }}, r.{{ srid }}, null, null, 'unresolved reject without a diverted delivery'
  from rejected as r
  where r.unresolved
    and not exists (select 1 from ledger as l
                    where l.{{ src }} = r.{{ src }} and l.{{ srid }} = r.{{ srid }} and l.{{ q('route') }} in ('quarantine', 'held'))
  {%- else %}
  union all
  select l.{{ src }}, l.{{ srid }}, l.{{ q('_load_id') }}, l.{{ q('_ingested_at') }}, 'diverted without a reject table'
  from ledger as l
  where l.{{ q('route') }} in ('quarantine', 'held', 'expired')
  {%- endif %}
)
select * from violations
{% endtest %}
