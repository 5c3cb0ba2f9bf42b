{#- Dedupe (`ranked`): each candidate's rank in its key (`_bloomery_rank`, 1 wins) and the source
    row that won the key (`_bloomery_winner`), by dedupe's total order. Ranked here, over the typed
    rows, unless stage_extract ranked the bronze rows as they arrived; without dedupe only the
    re-deliveries of a source row under one key are ranked (where the entity has delivery
    metadata). The losers stay in the relation, routed 'deduped'. -#}
{% macro stage_dedupe(staging) -%}
  {{ return(adapter.dispatch('stage_dedupe', 'bloomery')(staging)) }}
{%- endmacro %}

{% macro default__stage_dedupe(staging) -%}
{%- set q = adapter.quote -%}
{%- set entity, merged, early = staging.entity, staging.merged, staging.early -%}
{%- set key = entity.key %}
ranked as (
  select
    candidates.*
  {%- if early %}
  {%- elif entity.dedupe %},
    {%- set keys, order = [], [] -%}
    {%- for k in key %}{% do keys.append(q(k)) %}{% endfor -%}
    {%- for o in entity.dedupe.order %}{% do order.append(q(o.column)) %}{% endfor %}
    {%- set parsed = bloomery._dedupe_parsed(entity.dedupe.order, order) %}
    {%- set window = bloomery._dedupe_window(keys, entity.dedupe.order, order, q('_bloomery_source') if merged else none, parsed) %}
    row_number() {{ window }} as {{ q('_bloomery_rank') }}
    {%- if entity.metadata %},
    first_value({{ q('_source_row_id') }}) {{ window }} as {{ q('_bloomery_winner') }}
    {%- endif %}
  {%- elif entity.metadata %},
    {#- Without dedupe two rows of a key are a fault (`<entity>_key_unique`), but two deliveries
        of one source row under one key are a re-delivery: the latest (dedupe's order on the
        metadata) replaces the earlier ones, which are recorded as having lost to their own
        source row. A quarantined row corrected at the source leaves the reject table so. -#}
    {%- set order = [{'column': '_ingested_at', 'metadata': true}, {'column': '_load_id', 'metadata': true}] %}
    case when {{ q('_source_row_id') }} is null then 1 else row_number() over (
      partition by {{ q('_bloomery_source') }}, {{ q('_source_row_id') }}{% for k in key %}, {{ q(k) }}{% endfor %}
      order by {% for t in bloomery._dedupe_order_terms(order, [q('_ingested_at'), q('_load_id')]) %}{{ t }}, {% endfor %}{{ q('_bloomery_content') }} desc
    ) end as {{ q('_bloomery_rank') }},
    {{ q('_source_row_id') }} as {{ q('_bloomery_winner') }}
  {%- else %},
    1 as {{ q('_bloomery_rank') }}
  {%- endif %}
  {%- if not early and entity.dedupe and parsed %}
  {#- the order's timestamps, parsed once a row below the window (see _dedupe_parsed) #}
  from (
    select candidates.*, {% for i in parsed | sort %}{{ parsed[i][0] }} as {{ q(parsed[i][1]) }}{{ ", " if not loop.last }}{% endfor %}
    from candidates
    {{ bloomery.evaluate_once() }}
  ) as candidates
  {%- else %}
  from candidates
  {%- endif %}
),
{%- endmacro %}
