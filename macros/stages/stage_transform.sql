{#- Transform (`typed`): each mapping's bronze rows as the entity's columns, computed by their
    transform chains (safe casts where the entity judges quality), each with its cast-failure
    marker (`_bloomery_cast_failed__<column>`), plus the bronze payload and the delivery metadata
    the reject table and the ledger carry. A merged entity's mappings are one union. Reads
    `arrived` when dedupe ranked early, else bronze (only the batch's rows when `narrow`). -#}
{% macro stage_transform(staging) -%}
  {{ return(adapter.dispatch('stage_transform', 'bloomery')(staging)) }}
{%- endmacro %}

{% macro default__stage_transform(staging) -%}
{%- set q = adapter.quote -%}
{%- set entity, sources, state = staging.entity, staging.sources, staging.state -%}
{%- set narrow, merged, early = staging.narrow, staging.merged, staging.early %}
{%- set raw_union = [] %}
{%- for mapping in entity.mappings %}{% for c in mapping.raw_columns %}{% if c not in raw_union %}{% do raw_union.append(c) %}{% endif %}{% endfor %}{% endfor %}
typed as (
{%- for mapping in entity.mappings %}
  {%- set mapped = bloomery._mapped(mapping) %}
  {#- A column whose transform chain ends with a coercion (a cast, a parse, arithmetic) has that
      step's failure marker tested on the computed value, `<input> is not null and <value> is
      null`, in a query over the one that computes it: written over the bronze row, the marker
      repeated the cast (PostgreSQL's guarded timestamp parse among them, about 1.2 s of CPU a
      million rows; docs/performance.md). The earlier steps' markers stay as they are. -#}
  {%- set values = {} %}
  {%- set split = [] %}
  {%- for col in entity.columns if col.name in mapped %}
    {%- set v = bloomery.column_value(mapped[col.name], entity.quality) %}
    {%- do values.update({col.name: v}) %}
    {%- if entity.quality and v.last_input is not none %}{% do split.append(col.name) %}{% endif %}
  {%- endfor %}
  {%- if split %}
  select
    {{ q('_bloomery_mapping') }}, {{ q('_bloomery_source') }},
  {%- if entity.quarantine %}
    {% for c in (raw_union | sort(case_sensitive=true) if merged else mapping.raw_columns) %}{{ q('_bloomery_raw__' ~ c) }}, {% endfor %}
  {%- endif %}
  {%- if entity.metadata %}
    {% for m in bloomery.vocabulary().metadata %}{{ q(m) }}, {% endfor %}{{ q('_bloomery_content') }},
  {%- endif %}
  {%- for col in entity.columns %}
    {%- set marker = q('_bloomery_cast_failed__' ~ col.name) %}
    {%- if col.name in split %}
    {%- set last = q('_bloomery_present__' ~ col.name) ~ ' and ' ~ q(col.name) ~ ' is null' %}
    {{ q(col.name) }},
    {% if values[col.name].failures | length > 1 %}({{ marker }} or ({{ last }})){% else %}({{ last }}){% endif %} as {{ marker }}{{ "," if not loop.last }}
    {%- else %}
    {{ q(col.name) }}, {{ marker }}{{ "," if not loop.last }}
    {%- endif %}
  {%- endfor %}
  {%- if early %},
    {{ q('_bloomery_rank') }}, {{ q('_bloomery_winner') }}
  {%- endif %}
  from (
  {%- endif %}
  select
    {{ bloomery.string_literal(mapping.mapping) }} as {{ q('_bloomery_mapping') }},
    {{ bloomery.string_literal(mapping.source) }} as {{ q('_bloomery_source') }},
  {%- if entity.quarantine and merged %}
  {#- the branches of the union carry every mapping's payload columns, as text (two relations
      may type one column differently; the mapping reads it as text anyway) -#}
  {%- for c in raw_union | sort(case_sensitive=true) %}
    {% if c in mapping.raw_columns %}{{ bloomery.source_value(c, none) }}{% else %}cast(null as {{ bloomery.type_name({'name': 'string'}) }}){% endif %} as {{ q('_bloomery_raw__' ~ c) }},
  {%- endfor %}
  {%- elif entity.quarantine %}
  {%- for c in mapping.raw_columns %}
    {{ q(c) }} as {{ q('_bloomery_raw__' ~ c) }},
  {%- endfor %}
  {%- endif %}
  {%- if entity.metadata %}
    {% for m in bloomery.vocabulary().metadata %}{{ q(m) }}, {% endfor %}
    {{ bloomery.delivery_content(mapping) }} as {{ q('_bloomery_content') }},
  {%- endif %}
  {%- for col in entity.columns %}
    {%- if col.name in split %}
    {%- set v = values[col.name] %}
    {{ v.value }} as {{ q(col.name) }},
    {%- if v.failures | length > 1 %}
    ({{ v.failures[:-1] | join(' or ') }}) as {{ q('_bloomery_cast_failed__' ~ col.name) }},
    {%- endif %}
    ({{ v.last_input }} is not null) as {{ q('_bloomery_present__' ~ col.name) }}{{ "," if not loop.last }}
    {%- elif col.name in mapped %}
    {%- set v = values[col.name] %}
    {{ v.value }} as {{ q(col.name) }},
    {{ ('(' ~ (v.failures | join(' or ')) ~ ')') if (v.failures and entity.quality) else 'false' }} as {{ q('_bloomery_cast_failed__' ~ col.name) }}{{ "," if not loop.last }}
    {%- else %}
    cast(null as {{ bloomery.type_name(col.type) }}) as {{ q(col.name) }},
    false as {{ q('_bloomery_cast_failed__' ~ col.name) }}{{ "," if not loop.last }}
    {%- endif %}
  {%- endfor %}
  {%- if early %},
    {{ q('_bloomery_rank') }}, {{ q('_bloomery_winner') }}
  from arrived
  {%- else %}
  from {{ sources[mapping.source] }}
  {%- if narrow %}
  where {{ bloomery._narrow_filter(sources[mapping.source], mapped, entity, state, mapping.source) }}
  {%- endif %}
  {%- endif %}
  {%- if split %}
  {#- the values computed once a row: the markers above read them #}
  {{ bloomery.evaluate_once() }}
  ) as {{ q('_bloomery_values') }}
  {%- endif %}
  {%- if not loop.last %}
  union all
  {%- endif %}
{%- endfor %}
  {{ bloomery.evaluate_once() }}
),
{%- endmacro %}
