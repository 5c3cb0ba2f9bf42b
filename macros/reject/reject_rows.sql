{#- `<entity>__reject`: the diverted rows, one per source row (`reject_id`), with the bronze
    payload (`raw`, minus redacted columns) replay re-runs the mapping against. Materialized
    delete+insert on `reject_id`; the select carries over what a re-delivery must not change:
    `first_seen` (when the problem started) and `last_evaluated_at` (replay's stamp). -#}
{% macro reject_rows(entity, staged, sources) -%}
  {{ return(adapter.dispatch('reject_rows', 'bloomery')(entity, staged, sources)) }}
{%- endmacro %}

{% macro default__reject_rows(entity, staged, sources) -%}
  {{ bloomery._reject_select(entity, staged, this if is_incremental() else none) }}
{%- endmacro %}

{#- The diverted rows of this run; `existing` is the reject table as it was (none on a first
    build), read for the columns a re-delivery keeps. `first_seen` is the earliest delivery of the
    source row that fails a quarantine rule, among the deliveries this run judged.
    A merged entity's row names its own mapping and bronze relation (`_bloomery_mapping`,
    `_bloomery_source`), and its source row is looked up in that relation alone. -#}
{% macro _reject_select(entity, staged, existing) -%}
  {%- set q = adapter.quote -%}
  {%- set mapping = entity.mappings[0] -%}
  {%- set merged = entity.mappings | length > 1 -%}
  {%- set ts = bloomery.type_name({'name': 'timestamp'}) -%}
  {%- set id = bloomery.entity_reject_id(entity, 's.') -%}
with diverted as (
  select
    {# named in bloomery's namespace: `s.*` holds the entity's fields, which may include a
       `reject_id` of their own #}
    {{ id }} as {{ q('_bloomery_reject_id') }},
    s.*
  from {{ staged }} as s
  where s.{{ q('_bloomery_route') }} = 'quarantine'
),
first_seen as (
  {#- the earliest delivery of the source row this build judged that fails a quarantine rule,
      winner or not: a clean delivery before it is not when the problem started, and a build that
      sees every delivery at once (a first or full build) starts from the same one as a sequence
      of loads. An earlier value in the table is kept (below). -#}
  select {{ q('_source_row_id') }}{% if merged %}, {{ q('_bloomery_source') }}{% endif %},
    min({{ bloomery.safe_cast(q('_ingested_at'), {'name': 'timestamp'}) }}) as {{ q('first_seen') }}
  from {{ staged }}
  where {{ q('_bloomery_diverts') }}
    and {{ q('_source_row_id') }} in (select {{ q('_source_row_id') }} from diverted)
  group by {{ q('_source_row_id') }}{% if merged %}, {{ q('_bloomery_source') }}{% endif %}
)
select
  d.{{ q('_bloomery_reject_id') }} as {{ q('reject_id') }},
  {%- if merged %}
  d.{{ q('_bloomery_source') }} as {{ q('source_relation') }},
  d.{{ q('_bloomery_mapping') }} as {{ q('mapping') }},
  case{% for m in entity.mappings %} when d.{{ q('_bloomery_mapping') }} = {{ bloomery.string_literal(m.mapping) }} then {{ m.mapping_version }}{% endfor %} end as {{ q('mapping_version') }},
  {%- else %}
  {{ bloomery.string_literal(mapping.source) }} as {{ q('source_relation') }},
  {{ bloomery.string_literal(mapping.mapping) }} as {{ q('mapping') }},
  {{ mapping.mapping_version }} as {{ q('mapping_version') }},
  {%- endif %}
  d.{{ q('_quality_flags') }} as {{ q('failed_rules') }},
  {{ bloomery.json_object(entity.key, 'd.') }} as {{ q('key_values') }},
  d.{{ q('_bloomery_raw') }} as {{ q('raw') }},
  d.{{ q('_load_id') }},
  d.{{ q('_ingested_at') }},
  d.{{ q('_source_row_id') }},
  {%- if existing is not none %}
  coalesce(existing.{{ q('first_seen') }}, f.{{ q('first_seen') }}) as {{ q('first_seen') }},
  {%- else %}
  f.{{ q('first_seen') }} as {{ q('first_seen') }},
  {%- endif %}
  {{ bloomery.safe_cast('d.' ~ q('_ingested_at'), {'name': 'timestamp'}) }} as {{ q('last_seen') }},
  cast(null as {{ ts }}) as {{ q('resolved_at') }},
  {%- if existing is not none %}
  existing.{{ q('last_evaluated_at') }} as {{ q('last_evaluated_at') }}
  {%- else %}
  cast(null as {{ ts }}) as {{ q('last_evaluated_at') }}
  {%- endif %}
from diverted as d
left join first_seen as f on f.{{ q('_source_row_id') }} = d.{{ q('_source_row_id') }}
  {%- if merged %} and f.{{ q('_bloomery_source') }} = d.{{ q('_bloomery_source') }}{% endif %}
{%- if existing is not none %}
left join {{ existing }} as existing on existing.{{ q('reject_id') }} = d.{{ q('_bloomery_reject_id') }}
{%- endif %}
{%- endmacro %}
