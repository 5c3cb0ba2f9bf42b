{#- `<entity>`: the rows the split kept, with `_quality_flags` (flag and fail rules they fired,
    never NULL) and `_quality_ok`. Incremental runs first delete every row the batch re-judged
    (`entity_delete_touched`, a pre-hook), so a key whose new winner was diverted leaves the
    entity exactly as a full refresh would. -#}
{% macro entity_rows(entity, staged) -%}
  {{ return(adapter.dispatch('entity_rows', 'bloomery')(entity, staged)) }}
{%- endmacro %}

{% macro default__entity_rows(entity, staged) -%}
  {%- set q = adapter.quote -%}
  {#- publishing the staged table itself (publish.sql): this statement writes the unknown member
      alone, and the entity's post-hook moves it into the staged table it renames into place -#}
  {%- set swap = bloomery.publishes_staged(entity) -%}
{% if swap %}{{ bloomery.publish_mark() }}
{% endif -%}
select
  {%- for col in entity.columns %}
  {#- a decimal keeps its declared precision and scale in the published table: on PostgreSQL the
      guarded cast (CASE WHEN ... THEN cast(x as numeric(p,s)) END) types as a bare numeric -#}
  {% if col.type.name == 'decimal' %}cast({{ q(col.name) }} as {{ bloomery.type_name(col.type) }}) as {% endif %}{{ q(col.name) }},
  {%- endfor %}
  {%- if entity.metadata %}
  {{ q('_load_id') }}, {{ q('_ingested_at') }}, {{ q('_source_row_id') }},
  {%- endif %}
  {%- if entity.mappings | length > 1 %}
  {#- a merged entity's rows name their bronze relation: with `_source_row_id` it identifies the row #}
  {{ q('_bloomery_source') }} as {{ q('_source') }},
  {%- endif %}
  {{ q('_quality_flags') }},
  {{ bloomery.flags_size(q('_quality_flags')) }} = 0 as {{ q('_quality_ok') }}
from {{ staged }}
where ({{ 'false' if swap else q('_bloomery_route') ~ " = 'keep'" }})
{%- if entity.get('unknown_member') %}
{#- The reserved member children's orphans point at, so aggregates joined through the
    relationship keep every child row. It never satisfies a referential probe. -#}
union all
select
  {%- for col in entity.columns %}
  {% if col.name == entity.unknown_member %}'__unknown__'{% else %}cast(null as {{ bloomery.type_name(col.type) }}){% endif %},
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
where not exists (select 1 from {{ this }} where {{ q(entity.unknown_member) }} = '__unknown__')
{%- endif %}
{%- endif %}
{%- endmacro %}

{#- A parent entity read without a dbt ref, to break a cycle of referential rules: its rows as
    published by the previous run; none before the first one, and then every key is an orphan. -#}
{% macro published_relation(name) -%}
  {{ return(adapter.get_relation(database=this.database, schema=this.schema, identifier=name) if execute else none) }}
{%- endmacro %}
{#- `merged`: the entity unions several bronze relations, whose rows are identified by
    (`_source`, `_source_row_id`): two relations may reuse a source row id. -#}
{% macro entity_delete_touched(key, dedupe, staged, merged=false) -%}
  {{ return(adapter.dispatch('entity_delete_touched', 'bloomery')(key, dedupe, staged, merged)) }}
{%- endmacro %}

{#- With dedupe, a row the batch re-judged has its key in the batch, unless the key is NULL: such a
    row is its own dedupe group, and it is re-judged only when its delivery is in the batch (a
    source row the batch reached through one of its keys may hold a NULL-key delivery the batch
    did not read). Testing every row with a key by its delivery as well would only repeat the key
    test, at the cost of a second probe of the whole entity (at 8.7M rows: 0.36 s against 0.11 s).
    Without dedupe a row is its own group, and the batch holds every delivery of its source rows. -#}
{% macro default__entity_delete_touched(key, dedupe, staged, merged=false) -%}
  {%- if not is_incremental() -%}select 1{%- else -%}
  {%- set q = adapter.quote -%}
  {%- set same_source -%}
  {%- if merged %} and r.{{ q('_bloomery_source') }} = {{ this }}.{{ q('_source') }}{% endif -%}
  {%- endset -%}
delete from {{ this }}
where {% if dedupe -%}
  exists (
     select 1 from {{ staged }} as s
     where {% for k in key %}s.{{ q(k) }} = {{ this }}.{{ q(k) }}{{ " and " if not loop.last }}{% endfor %}
   )
   or (({% for k in key %}{{ q(k) }} is null{{ " or " if not loop.last }}{% endfor %})
       and exists (select 1 from {{ staged }} as r
                   where r.{{ q('_source_row_id') }} = {{ this }}.{{ q('_source_row_id') }}
                     and r.{{ q('_load_id') }} = {{ this }}.{{ q('_load_id') }}
                     and r.{{ q('_ingested_at') }} = {{ this }}.{{ q('_ingested_at') }}{{ same_source }}))
  {%- elif merged -%}
  exists (select 1 from {{ staged }} as r
          where r.{{ q('_source_row_id') }} = {{ this }}.{{ q('_source_row_id') }}{{ same_source }})
  {%- else -%}
  {{ q('_source_row_id') }} in (select {{ q('_source_row_id') }} from {{ staged }})
  {%- endif %}
  {%- endif -%}
{%- endmacro %}
