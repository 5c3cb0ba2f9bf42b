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
    {{ id }} as {{ q('reject_id') }},
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
  d.{{ q('reject_id') }},
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
left join {{ existing }} as existing on existing.{{ q('reject_id') }} = d.{{ q('reject_id') }}
{%- endif %}
{%- endmacro %}

{#- reject_id = sha256 hex of 'S' || len(src) || ':' || src || 'S' || len(id) || ':' || id:
    length-prefixed so no two (source, row) pairs can spell the same text; `_load_id` is left
    out on purpose, so a re-delivery lands on the same reject row. -#}
{% macro reject_id(source_relation, source_row_id) -%}
  {%- set s = bloomery.type_name({'name': 'string'}) -%}
  {%- set rid = 'cast(' ~ source_row_id ~ ' as ' ~ s ~ ')' -%}
  {{ bloomery.sha256_hex(bloomery.string_literal('S' ~ (source_relation | length) ~ ':' ~ source_relation ~ 'S') ~ ' || cast(length(' ~ rid ~ ') as ' ~ s ~ ") || ':' || " ~ rid) }}
{%- endmacro %}

{#- The reject_id of a staged row (`prefix`: its alias with a dot): a merged entity's row hashes
    its own bronze relation, so the same source row id in two relations is two reject rows. -#}
{% macro entity_reject_id(entity, prefix='') -%}
  {%- set q = adapter.quote -%}
  {%- if entity.mappings | length == 1 -%}
    {{ return(bloomery.reject_id(entity.mappings[0].source, prefix ~ q('_source_row_id'))) }}
  {%- endif -%}
  {%- set out = ['case ' ~ prefix ~ q('_bloomery_source')] -%}
  {%- for m in entity.mappings -%}
    {%- do out.append('when ' ~ bloomery.string_literal(m.source) ~ ' then ' ~ bloomery.reject_id(m.source, prefix ~ q('_source_row_id'))) -%}
  {%- endfor -%}
  {{ return(out | join(' ') ~ ' end') }}
{%- endmacro %}

{% macro sha256_hex(expr) -%}
  {{ return(adapter.dispatch('sha256_hex', 'bloomery')(expr)) }}
{%- endmacro %}
{% macro default__sha256_hex(expr) -%}sha256({{ expr }}){%- endmacro %}

{#- A JSON object of columns, keys sorted (the compiler sorts them). -#}
{% macro json_object(columns, prefix='', column_prefix='') -%}
  {{ return(adapter.dispatch('json_object', 'bloomery')(columns, prefix, column_prefix)) }}
{%- endmacro %}
{% macro default__json_object(columns, prefix, column_prefix) -%}
  json_object({% for c in columns | sort %}{{ bloomery.string_literal(c) }}, {{ prefix }}{{ adapter.quote(column_prefix ~ c) }}{{ ", " if not loop.last }}{% endfor %})
{%- endmacro %}

{#- Post-hook: an unresolved reject row is resolved when the delivery it records was judged again
    in this run and is neither diverted again nor held: its key has a newer winner (a newer
    re-delivery of the row, for one), or a full refresh found that it passes now. Matching the
    delivery, not only the source row id, matters: a batch reaches a source row through a key it
    touches, and that row's diverted delivery, under another key, may not be in the batch.
    Nothing is deleted. `source_relation` is the entity's bronze relation, or the list of them
    for a merged entity, whose rows are matched by (bronze relation, source row id). -#}
{% macro resolve_rejects(source_relation, staged) -%}
  {{ return(adapter.dispatch('resolve_rejects', 'bloomery')(source_relation, staged)) }}
{%- endmacro %}

{% macro default__resolve_rejects(source_relation, staged) -%}
  {%- set q = adapter.quote -%}
  {%- set merged = source_relation is not string -%}
  {%- set same_row -%}
  s.{{ q('_source_row_id') }} = {{ this }}.{{ q('_source_row_id') }}
      {%- if merged %} and s.{{ q('_bloomery_source') }} = {{ this }}.{{ q('source_relation') }}{% endif %}
  {%- endset -%}
update {{ this }}
set {{ q('resolved_at') }} = {{ bloomery.run_timestamp() }}
where {{ q('resolved_at') }} is null
  {%- if not merged %}
  and {{ q('source_relation') }} = {{ bloomery.string_literal(source_relation) }}
  {%- endif %}
  and exists (
    select 1 from {{ staged }} as s
    where {{ same_row }}
      and s.{{ q('_load_id') }} = {{ this }}.{{ q('_load_id') }} and s.{{ q('_ingested_at') }} = {{ this }}.{{ q('_ingested_at') }}
  )
  {#- the same delivery may be in bronze twice (a load appended twice): one copy loses to the other #}
  and not exists (
    select 1 from {{ staged }} as s
    where s.{{ q('_bloomery_route') }} in ('quarantine', 'held') and {{ same_row }}
  )
{%- endmacro %}

{% macro run_timestamp() -%}
  cast({{ bloomery.string_literal(run_started_at.strftime('%Y-%m-%d %H:%M:%S')) }} as {{ bloomery.type_name({'name': 'timestamp'}) }})
{%- endmacro %}
