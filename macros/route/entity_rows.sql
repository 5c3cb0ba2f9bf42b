{#- `<entity>`: the rows the split kept, with `_quality_flags` (flag and fail rules they fired,
    never NULL) and `_quality_ok`. Incremental runs first delete every row the batch re-judged
    (`entity_delete_touched`, a pre-hook), so a key whose new winner was diverted leaves the
    entity exactly as a full refresh would. -#}
{% macro entity_rows(entity, staged) -%}
  {{ return(adapter.dispatch('entity_rows', 'bloomery')(entity, staged)) }}
{%- endmacro %}

{% macro default__entity_rows(entity, staged) -%}
  {%- set q = adapter.quote -%}
  {#- publishing the staged table itself (publishes_staged.sql): this statement writes the unknown member
      alone, and the entity's post-hook moves it into the staged table it renames into place -#}
  {%- set swap = bloomery.publishes_staged(entity) -%}
{% if swap %}{{ bloomery.publish_mark() }}
{% endif -%}
select
  {#- the staged table carries the declared types and `_quality_ok` (stage_route.sql): copied as they are -#}
  {%- for col in entity.columns %}
  {{ q(col.name) }},
  {%- endfor %}
  {%- for pair in bloomery.delivered_keys(entity) %}
  {{ q(pair[1]) }},
  {%- endfor %}
  {%- if entity.metadata %}
  {% for m in bloomery.vocabulary().metadata %}{{ q(m) }}, {% endfor %}
  {%- endif %}
  {%- if entity.mappings | length > 1 %}
  {#- a merged entity's rows name their bronze relation: with `_source_row_id` it identifies the row #}
  {{ q('_bloomery_source') }} as {{ q('_source') }},
  {%- endif %}
  {{ q('_quality_flags') }},
  {{ q('_quality_ok') }}
from {{ staged }}
where ({{ 'false' if swap else q('_bloomery_route') ~ " = 'keep'" }})
{%- if entity.get('unknown_member') %}
{#- The reserved member children's orphans point at, so aggregates joined through the
    relationship keep every child row. It never satisfies a referential probe. -#}
union all
select
  {%- for col in entity.columns %}
  {% if col.name == entity.unknown_member %}{{ bloomery.string_literal(bloomery.vocabulary().unknown_member) }}{% else %}cast(null as {{ bloomery.type_name(col.type) }}){% endif %},
  {%- endfor %}
  {%- for pair in bloomery.delivered_keys(entity) %}
  cast(null as {{ bloomery.type_name({'name': 'string'}) }}),
  {%- endfor %}
  {%- if entity.metadata %}
  null, null, null,
  {%- endif %}
  {%- if entity.mappings | length > 1 %}
  null,
  {%- endif %}
  {{ bloomery.empty_flags() }},
  true
{%- if is_incremental() %}
where not exists (select 1 from {{ this }} where {{ q(entity.unknown_member) }} = {{ bloomery.string_literal(bloomery.vocabulary().unknown_member) }})
{%- endif %}
{%- endif %}
{%- endmacro %}
