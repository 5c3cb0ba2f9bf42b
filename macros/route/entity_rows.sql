{#- `<entity>`: the rows the split kept, with `_quality_flags` (flag and fail rules they fired,
    never NULL) and `_quality_ok`. Incremental runs first delete every row the batch re-judged
    (`entity_delete_touched`, a pre-hook), so a key whose new winner was diverted leaves the
    entity exactly as a full refresh would. -#}
{% macro entity_rows(entity, staged) -%}
  {%- set q = adapter.quote -%}
select
  {%- for col in entity.columns %}
  {{ q(col.name) }},
  {%- endfor %}
  {%- if entity.metadata %}
  {{ q('_load_id') }}, {{ q('_ingested_at') }}, {{ q('_source_row_id') }},
  {%- endif %}
  {{ q('_quality_flags') }},
  {{ bloomery.flags_size(q('_quality_flags')) }} = 0 as {{ q('_quality_ok') }}
from {{ staged }}
where {{ q('_bloomery_route') }} = 'keep'
{%- endmacro %}

{% macro entity_delete_touched(key, dedupe, staged) -%}
  {%- if not is_incremental() -%}select 1{%- else -%}
  {%- set q = adapter.quote -%}
delete from {{ this }}
where {{ q('_source_row_id') }} in (select {{ q('_source_row_id') }} from {{ staged }})
  {%- if dedupe %}
   or exists (
     select 1 from {{ staged }} as s
     where {% for k in key %}s.{{ q(k) }} = {{ this }}.{{ q(k) }}{{ " and " if not loop.last }}{% endfor %}
   )
  {%- endif %}
  {%- endif -%}
{%- endmacro %}
