{#- Blocking audit for one `fail` rule. It reads the pre-route population (this run's survivors,
    whichever way they were routed: a row that also fired a quarantine rule must still stop the
    run) and the entity as published so far (a replayed row carries its flags there, long after
    its bronze row left the incremental window). -#}
{% test bloomery_fail_rule(model, rule, entity, current_only=false) %}
  {%- set rule, entity, current_only = bloomery.argument(rule), bloomery.argument(entity), bloomery.argument(current_only) -%}
  {%- set q = adapter.quote -%}
  {%- set published = adapter.get_relation(database=model.database, schema=model.schema, identifier=entity) if execute else none -%}
select {{ bloomery.string_literal(rule) }} as rule, 'this run' as population, {{ q('_source_row_id') }}
from {{ model }}
where {{ q('_bloomery_route') }} <> 'deduped' and {{ bloomery.flags_contain(q('_quality_flags'), rule) }}
{%- if published is not none %}
union all
select {{ bloomery.string_literal(rule) }}, 'published', {{ q('_source_row_id') }}
from {{ published }}
where {{ bloomery.flags_contain(q('_quality_flags'), rule) }}{% if current_only %} and dbt_valid_to is null{% endif %}
{%- endif %}
{% endtest %}
