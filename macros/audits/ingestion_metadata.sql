{#- Blocking audit on `<entity>__staged`: ingestion metadata is what dedupe, replay and
    conservation stand on, and only the data can break it. Returns the offending rows with the
    reason; any row stops the entity, its reject table and the mart from being published.

    `entity` names the entity (its ledger is `<entity>__ledger`, looked up, not referenced: a
    reference would run this audit after the ledger is built), `key` its key columns; `sources`
    the bronze relations and `names` their names, in the same order (inert JSON, spec text). -#}
{% test bloomery_ingestion_metadata(model, entity=none, key=none, sources=[], names=none) %}
  {%- set entity, key, names = bloomery.argument(entity), bloomery.argument(key), bloomery.argument(names) -%}
  {%- set q = adapter.quote -%}
  {%- set s = bloomery.type_name({'name': 'string'}) -%}
  {%- set src, srid, load, at = q('_bloomery_source'), q('_source_row_id'), q('_load_id'), q('_ingested_at') -%}
  {%- set ts = bloomery.safe_cast('s.' ~ at, {'name': 'timestamp'}) -%}
  {%- set ledger = none -%}
  {%- if execute and entity and not flags.FULL_REFRESH -%}
    {%- set ledger = bloomery._readable_ledger(model.database, model.schema, entity) -%}
    {%- if ledger is not none and 'content_hash' not in adapter.get_columns_in_relation(ledger) | map(attribute='name') | map('lower') | list -%}
      {%- set ledger = none -%}
    {%- endif -%}
  {%- endif -%}
  {#- a key as one text, length-prefixed per column, so two keys are equal exactly when every
      column is (a NULL part included) -#}
  {%- set key_parts = [] -%}
  {%- for k in key or [] -%}
    {%- set v = 'cast(' ~ q(k) ~ ' as ' ~ s ~ ')' -%}
    {%- do key_parts.append("coalesce('L' || cast(length(" ~ v ~ ") as " ~ s ~ ") || ':' || " ~ v ~ ", 'N')") -%}
  {%- endfor -%}
  {%- if key is none -%}
    {#- a project compiled before the key was passed: every surviving delivery counts as a claim -#}
    {%- do key_parts.append(load ~ " || '/' || " ~ at) -%}
  {%- endif -%}
  {%- set identity -%}
    'identity ' || s.{{ src }} || ' / ' || s.{{ srid }} || ' / ' || s.{{ load }} || ' / ' || s.{{ at }}
  {%- endset -%}
{#- NULL and uncastable metadata is checked on every row of this run's extract, dedupe's losers
    included (a NULL `_ingested_at` sorts last and would otherwise lose quietly).
    A source row delivered several times is no fault (a re-delivery in a later load, a correction);
    it is one when its deliveries that survive dedupe claim two keys. And a delivery's identity
    (bronze relation, `_source_row_id`, `_load_id`, `_ingested_at`) is one delivery: two bronze
    rows of one identity with other content, or an identity the ledger recorded arriving with other
    content, are a loader reusing it (docs/design.md "A delivery's content"), which dedupe would
    otherwise settle by a tie against itself, or an incremental batch pass over as judged.
    Only the source rows delivered more than once reach those checks: one aggregate over this
    run's rows, then a semi-join. A source row is identified within its bronze relation: a merged
    entity's relations may reuse an id. #}
with repeated as (
  select {{ src }}, {{ srid }}
  from {{ model }}
  where {{ srid }} is not null
  group by {{ src }}, {{ srid }}
  having count(*) > 1
),
deliveries as (
  select s.* from {{ model }} as s
  where exists (select 1 from repeated as r where r.{{ src }} = s.{{ src }} and r.{{ srid }} = s.{{ srid }})
),
claims as (
  select {{ src }}, {{ srid }}, count(distinct {{ key_parts | join(' || ') if key_parts else "''" }}) as source_row_claims
  from deliveries
  where {{ q('_bloomery_route') }} <> 'deduped'
  group by {{ src }}, {{ srid }}
  having count(distinct {{ key_parts | join(' || ') if key_parts else "''" }}) > 1
),
reused as (
  select {{ src }}, {{ srid }}, {{ load }}, {{ at }}
  from deliveries
  group by {{ src }}, {{ srid }}, {{ load }}, {{ at }}
  having count(distinct {{ q('_bloomery_content') }}) > 1
)
{%- if ledger is not none %},
{#- the ledger's deliveries of the loads bronze and the ledger do not agree on one for one: only
    there can a judged identity arrive again (a load the ledger holds as many deliveries of as
    bronze is settled, see `open_loads`) #}
open_loads as (
  {%- set bronze = [] %}
  {%- for b in sources %}{% do bronze.append([names[loop.index0], b]) %}{% endfor %}
  {{ bloomery.open_loads(bronze, ledger) }}
),
recorded as (
  select l.{{ q('source_relation') }}, l.{{ srid }}, l.{{ load }}, l.{{ at }}, l.{{ q('content_hash') }}
  from {{ ledger }} as l
  where l.{{ q('content_hash') }} is not null
    and exists (select 1 from open_loads as o
                where o.{{ q('source_relation') }} = l.{{ q('source_relation') }} and o.{{ load }} = l.{{ load }})
)
{%- endif %}
select
  case
    when s.{{ load }} is null then '_load_id is null'
    when s.{{ at }} is null then '_ingested_at is null'
    when s.{{ srid }} is null then '_source_row_id is null'
    when {{ ts }} is null then '_ingested_at does not cast to timestamp'
    when c.source_row_claims is not null
      then '_source_row_id claimed by ' || cast(c.source_row_claims as {{ s }}) || ' keys'
    else {{ identity }} || ' delivered with other content'
         || case when u.{{ srid }} is null then ' than the ledger recorded' else ' twice' end
  end as problem,
  s.{{ srid }}, s.{{ load }}, s.{{ at }}
from {{ model }} as s
left join claims as c
  on c.{{ srid }} = s.{{ srid }} and c.{{ src }} = s.{{ src }}
     and s.{{ q('_bloomery_route') }} <> 'deduped'
left join reused as u
  on u.{{ srid }} = s.{{ srid }} and u.{{ src }} = s.{{ src }} and u.{{ load }} = s.{{ load }} and u.{{ at }} = s.{{ at }}
where s.{{ load }} is null
   or s.{{ at }} is null
   or s.{{ srid }} is null
   or {{ ts }} is null
   or c.source_row_claims is not null
   or u.{{ srid }} is not null
{%- if ledger is not none %}
   or exists (select 1 from recorded as l
              where l.{{ q('source_relation') }} = s.{{ src }} and l.{{ srid }} = s.{{ srid }}
                and l.{{ load }} = s.{{ load }} and l.{{ at }} = s.{{ at }}
                and l.{{ q('content_hash') }} <> s.{{ q('_bloomery_content') }})
{%- endif %}
{% endtest %}
