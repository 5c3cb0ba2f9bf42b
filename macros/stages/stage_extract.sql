{#- Extract (`arrived`): the bronze columns the mapping reads, each row ranked in its key by dedupe's
    order as it arrives, before any value is transformed (`early`, decided by quality_split), so the
    dedupe window sorts those few columns rather than every typed value and cast marker. Renders
    nothing where dedupe ranks the typed rows instead (stage_dedupe), or there is no dedupe. -#}
{% macro stage_extract(staging) -%}
  {{ return(adapter.dispatch('stage_extract', 'bloomery')(staging)) }}
{%- endmacro %}

{% macro default__stage_extract(staging) -%}
{%- set q = adapter.quote -%}
{%- set entity, sources, state = staging.entity, staging.sources, staging.state -%}
{%- set narrow, early = staging.narrow, staging.early %}
{%- if early %}
{%- set mapping = entity.mappings[0] %}
{%- set mapped = bloomery._mapped(mapping) %}
{%- set read = mapping.read_columns + mapping.raw_columns + (bloomery.vocabulary().metadata if entity.metadata else []) %}
{#- case-sensitive: `$.ID` and `$.id` are two bronze columns -#}
{%- set read = read | unique(case_sensitive=true) | sort(case_sensitive=true) %}
{%- set order_values = bloomery._order_values(mapped, entity) %}
{%- set parsed = bloomery._dedupe_parsed(entity.dedupe.order, order_values) %}
arrived as (
  select
    {%- for c in read %}
    {{ q(c) }},
    {%- endfor %}
    {%- set window = bloomery._dedupe_window(bloomery._key_values(mapped, entity), entity.dedupe.order, order_values, parsed=parsed) %}
    row_number() {{ window }} as {{ q('_bloomery_rank') }},
    first_value({{ q('_source_row_id') }}) {{ window }} as {{ q('_bloomery_winner') }}
  {%- if parsed %}
  {#- the order's timestamps, parsed once a row below the window (see _dedupe_parsed) #}
  from (
    select {% for c in read %}{{ q(c) }}, {% endfor %}
      {%- for i in parsed | sort %}{{ parsed[i][0] }} as {{ q(parsed[i][1]) }}{{ ", " if not loop.last }}{% endfor %}
    from {{ sources[mapping.source] }}
    {%- if narrow %}
    where {{ bloomery._narrow_filter(sources[mapping.source], mapped, entity, state, mapping.source) }}
    {%- endif %}
    {{ bloomery.evaluate_once() }}
  ) as {{ q('_bloomery_arriving') }}
  {%- else %}
  from {{ sources[mapping.source] }}
  {%- if narrow %}
  where {{ bloomery._narrow_filter(sources[mapping.source], mapped, entity, state, mapping.source) }}
  {%- endif %}
  {%- endif %}
),
{%- endif %}
{%- endmacro %}

{#- The entity key's values and dedupe's order values, computed from a mapping's bronze row. -#}
{% macro _key_values(mapped, entity) -%}
  {%- set out = [] -%}
  {%- for k in entity.key -%}{%- do out.append(bloomery._key_value(mapped, k, entity) | trim) -%}{%- endfor -%}
  {{ return(out) }}
{%- endmacro %}

{% macro _order_values(mapped, entity) -%}
  {%- set out = [] -%}
  {%- for o in entity.dedupe.order -%}
    {%- do out.append(adapter.quote(o.column) if o.metadata else bloomery._key_value(mapped, o.column, entity) | trim) -%}
  {%- endfor -%}
  {{ return(out) }}
{%- endmacro %}
