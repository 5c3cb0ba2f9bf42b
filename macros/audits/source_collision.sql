{#- Blocking audit on `<entity>__staged` of a merged entity without dedupe: a key delivered by two
    of its mappings. Nothing decides which delivery is the entity's row (dedupe would), so the
    build stops before either is published. Every delivery counts, kept or diverted: a diverted
    row replayed later would publish the key a second time. An incremental entity also holds the
    keys earlier runs published, less the rows this run re-judges (the entity's pre-hook deletes
    them). Returns one row per colliding key, with how many bronze relations deliver it. -#}
{% test bloomery_source_collision(model, entity, key, incremental=false, current_only=false) %}
  {%- set entity, key = bloomery.argument(entity), bloomery.argument(key) -%}
  {%- set incremental, current_only = bloomery.argument(incremental), bloomery.argument(current_only) -%}
  {%- set q = adapter.quote -%}
  {%- set published = adapter.get_relation(database=model.database, schema=model.schema, identifier=entity) if execute and incremental else none -%}
with deliveries as (
  select {% for k in key %}{{ q(k) }}, {% endfor %}{{ q('_bloomery_source') }} as source_relation
  from {{ model }}
  where {{ q('_bloomery_route') }} <> 'deduped'{% for k in key %} and {{ q(k) }} is not null{% endfor %}
{%- if published is not none %}
  union all
  select {% for k in key %}p.{{ q(k) }}, {% endfor %}p.{{ q('_source') }}
  from {{ published }} as p
  where {% for k in key %}p.{{ q(k) }} is not null and {% endfor %}p.{{ q('_source') }} is not null
    {%- if current_only %} and p.dbt_valid_to is null{% endif %}
    and not exists (select 1 from {{ model }} as s
                    where s.{{ q('_source_row_id') }} = p.{{ q('_source_row_id') }} and s.{{ q('_bloomery_source') }} = p.{{ q('_source') }})
{%- endif %}
)
select {% for k in key %}{{ q(k) }}, {% endfor %}count(distinct source_relation) as delivering_relations
from deliveries
group by {% for k in key %}{{ q(k) }}{{ ", " if not loop.last }}{% endfor %}
having count(distinct source_relation) > 1
{% endtest %}
