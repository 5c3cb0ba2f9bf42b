{#- The incremental batch (`open_loads`, `judged_open`, `repeated_open`): the bronze deliveries the
    ledger has not recorded as judged, matched row by row only in the loads it does not account for
    (`_in_batch` reads these CTEs), so an incremental run costs its batch, not the whole history.
    A `narrow` batch (no `unique` rule) also picks here, from bronze, the rows it judges (`batch`)
    and the keys they touch (`touching`): only those are transformed. Renders nothing when the
    build judges all of bronze (a `full` entity, a first build, a full refresh, replay). -#}
{% macro stage_batch(staging) -%}
  {{ return(adapter.dispatch('stage_batch', 'bloomery')(staging)) }}
{%- endmacro %}

{% macro default__stage_batch(staging) -%}
{%- set q = adapter.quote -%}
{%- set entity, sources, state = staging.entity, staging.sources, staging.state -%}
{%- set key, narrow, merged = entity.key, staging.narrow, staging.merged %}
{%- if state is not none %}
open_loads as (
  {%- set bronze = [] %}
  {%- for mapping in entity.mappings %}{% do bronze.append([mapping.source, sources[mapping.source]]) %}{% endfor %}
  {{ bloomery.open_loads(bronze, state.ledger) }}
),
{#- the ledger's deliveries of those loads: the batch is matched against these, not the whole ledger #}
judged_open as (
  select l.{{ q('source_relation') }}, l.{{ q('_source_row_id') }}, l.{{ q('_load_id') }}, l.{{ q('_ingested_at') }},
    {% if state.content %}l.{{ q('content_hash') }}{% else %}cast(null as {{ bloomery.type_name({'name': 'string'}) }}){% endif %} as {{ q('content_hash') }}
  from {{ state.ledger }} as l
  where exists (select 1 from open_loads as o
                where o.{{ q('source_relation') }} = l.{{ q('source_relation') }} and o.{{ q('_load_id') }} = l.{{ q('_load_id') }})
),
{#- identities bronze holds twice in an open load: judged again with every copy, so the
    ingestion-metadata audit compares their contents (a loader reusing an identity), whatever the
    ledger recorded (a ledger from before `content_hash` holds none) #}
repeated_open as (
  {%- for mapping in entity.mappings %}
  select {{ bloomery.string_literal(mapping.source) }} as {{ q('source_relation') }}, b.{{ q('_source_row_id') }}, b.{{ q('_load_id') }}, b.{{ q('_ingested_at') }}
  from {{ sources[mapping.source] }} as b
  where exists (select 1 from open_loads as o
                where o.{{ q('source_relation') }} = {{ bloomery.string_literal(mapping.source) }} and o.{{ q('_load_id') }} = b.{{ q('_load_id') }})
  group by b.{{ q('_source_row_id') }}, b.{{ q('_load_id') }}, b.{{ q('_ingested_at') }}
  having count(*) > 1
  {%- if not loop.last %}
  union all
  {%- endif %}
  {%- endfor %}
),
{%- endif %}
{%- if narrow %}
{{ 'batch' if entity.dedupe else 'touching' }} as (
{%- for mapping in entity.mappings %}
  {%- set mapped = bloomery._mapped(mapping) %}
  select {{ q('_source_row_id') }} as {{ q('_bloomery_touch__source_row_id') }}
  {%- if merged %}, {{ bloomery.string_literal(mapping.source) }} as {{ q('_bloomery_touch__source') }}{% endif %}
  {%- for k in key %}, {{ bloomery._key_value(mapped, k, entity) }} as {{ q('_bloomery_touch__' ~ k) }}{% endfor %}
  from {{ sources[mapping.source] }} as b
  where {{ bloomery._in_batch(state, 'b.', bloomery.string_literal(mapping.source), bloomery.delivery_content(mapping, 'b.')) }}
  {%- if not loop.last %}
  union all
  {%- endif %}
{%- endfor %}
),
{%- if entity.dedupe %}
{#- The keys the batch touches: its rows' keys, and the key of every other delivery of their
    source rows. A source row re-delivered under another key touches both keys, so each key's
    winner is picked from all of its rows, as a full build picks it (from the batch's keys alone,
    an older delivery of the source row would win its old key against rows the batch never read). -#}
touching as (
  select * from batch
{%- for mapping in entity.mappings %}
  {%- set mapped = bloomery._mapped(mapping) %}
  union all
  select {{ q('_source_row_id') }}
  {%- if merged %}, {{ bloomery.string_literal(mapping.source) }}{% endif %}
  {%- for k in key %}, {{ bloomery._key_value(mapped, k, entity) }}{% endfor %}
  from {{ sources[mapping.source] }} as b
  where {{ q('_source_row_id') }} in (select {{ q('_bloomery_touch__source_row_id') }} from batch
    {%- if merged %} where {{ q('_bloomery_touch__source') }} = {{ bloomery.string_literal(mapping.source) }}{% endif %})
{%- endfor %}
),
{%- endif %}
{%- endif %}
{%- endmacro %}
