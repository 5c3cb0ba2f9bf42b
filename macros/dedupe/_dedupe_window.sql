{#- Dedupe's ordering, shared by the split (quality_split: rank and winner) and replay (through
    _dedupe_rank), so both decide a key the same way. -#}
{#- Dedupe's window over the rows of a key, for its rank (`row_number()`) and its winner
    (`first_value(_source_row_id)`, the row a loser is recorded as having lost to): the latest by
    the dedupe order wins, the source row id breaks ties. A row whose key is incomplete is its own
    group. `order` is the entity's dedupe order (`entity.dedupe.order`), `values` the SQL value of
    each of its columns. `parsed` (from `_dedupe_parsed`), when given, names the columns a query
    below the window computed the `_ingested_at` timestamps into. -#}
{% macro _dedupe_window(keys, order, values, source=none, parsed=none) -%}
  {%- set srid = adapter.quote('_source_row_id') -%}
  over (
      partition by {{ bloomery._dedupe_partition(keys, source) }}
      order by {% for t in bloomery._dedupe_order_terms(order, values, parsed) %}{{ t }}, {% endfor %}{{ srid }} desc nulls last{% if source is not none %}, {{ source }} desc{% endif %}
    )
{%- endmacro %}

{#- The rows dedupe contests with each other: a key's rows (of one bronze relation where `source`
    is given); a row whose key is incomplete is its own group. -#}
{% macro _dedupe_partition(keys, source=none) -%}
  {%- set incomplete = 'case when ' ~ keys | join(' is null or ') ~ ' is null then ' -%}
  {% for k in keys %}{{ k }}, {% endfor %}{{ incomplete }}{{ adapter.quote('_source_row_id') }} end{% if source is not none %}, {{ incomplete }}{{ source }} end{% endif %}
{%- endmacro %}

{#- The sort terms of dedupe's order, latest first. `_ingested_at` is bronze text, and as text
    '2024-01-10T01:00:00' sorts after '2024-01-10 23:00:00': it is ranked by the timestamp it
    casts to, the cast the ingestion-metadata audit applies. A value that does not cast sorts after
    every one that does, and among themselves such values go by their text descending: the audit
    stops any run holding one, but the order stays total. The text term is NULL on castable rows,
    so two spellings of one instant are still decided by the tie-break columns. A mapped field
    (even one named by dedupe.field) is already typed. -#}
{% macro _dedupe_order_terms(order, values, parsed=none) -%}
  {%- set out = [] -%}
  {%- for o in order -%}
    {%- set v = values[loop.index0] -%}
    {%- if o.metadata and o.column == '_ingested_at' -%}
      {%- if parsed and loop.index0 in parsed -%}
        {%- set ts = adapter.quote(parsed[loop.index0][1]) -%}
      {%- else -%}
        {%- set ts = bloomery.safe_cast(v, {'name': 'timestamp'}) | trim -%}
      {%- endif -%}
      {%- do out.append(ts ~ ' desc nulls last') -%}
      {%- do out.append('case when ' ~ ts ~ ' is null then ' ~ v ~ ' end desc nulls last') -%}
    {%- else -%}
      {%- do out.append(v ~ ' desc nulls last') -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(out) }}
{%- endmacro %}

{#- The timestamps dedupe's order parses, as {index in the order: [SQL, column name]}, for a
    query below the window to compute once. The window reads each of them twice (its value, and
    whether it is NULL for the text term), and PostgreSQL evaluates a sort expression at each
    place it is written: the guarded parse of `_ingested_at`, twice a row, was about 0.7 s of CPU
    a million rows (docs/performance.md). -#}
{% macro _dedupe_parsed(order, values) -%}
  {%- set out = {} -%}
  {%- for o in order -%}
    {%- if o.metadata and o.column == '_ingested_at' -%}
      {%- do out.update({loop.index0: [bloomery.safe_cast(values[loop.index0], {'name': 'timestamp'}) | trim, '_bloomery_order__' ~ loop.index0]}) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(out) }}
{%- endmacro %}
