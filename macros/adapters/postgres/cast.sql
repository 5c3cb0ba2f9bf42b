{% macro postgres__type_names() -%}
  {{ return({'string': 'text', 'int': 'bigint', 'bool': 'boolean', 'date': 'date',
             'timestamp': 'timestamp', 'variant': 'jsonb', 'decimal': 'numeric'}) }}
{%- endmacro %}

{#- Postgres has no TRY_CAST: guard the cast with the engine's own input parser (16+), and refuse
    the clock words that would coerce the same cell differently on every run. Only ever applied to
    column values: the planner folds a cast of a literal even inside a CASE branch that never runs. -#}
{% macro postgres__safe_cast(expr, type) -%}
  {%- set t = bloomery.type_name(type) -%}
  case when pg_input_is_valid(({{ expr }})::text, {{ bloomery.string_literal(t) }})
  {%- if type.name in ('date', 'timestamp') %} and not lower(({{ expr }})::text) ~ '^[[:space:]]*(now|today|tomorrow|yesterday)[[:space:]]*$'{% endif %}
  then cast(({{ expr }})::text as {{ t }}) end
{%- endmacro %}

{#- text_to_timestamp (macros/cast/text_to_timestamp.sql): the pattern matched once per value,
    its fields read from the match array in a scalar subquery (as parse_format does), the
    rewritten value judged by the engine's input parser. Outside quality a failure raises: a
    value of the wrong shape as a cast of the message, one that is no calendar date with the
    cast's own error.
    The common spelling, `YYYY-MM-DD hh:mm:ss` (or with `T`) and a year from 1000, skips the
    match: `regexp_match` with its capture groups costs about 0.09 ms a value, `~` without them
    and the input check a tenth of that, and the bench's staged query spends nearly all its time
    here (docs/performance.md). The shape's hours, minutes and seconds are the product's own
    ranges, so `24:00:00` and `23:59:60` still take the full match and fail there; the calendar
    is `pg_input_is_valid`'s. -#}
{% macro postgres__text_to_timestamp(expr, safe) -%}
  {%- set p = bloomery.iso_timestamp_pattern() -%}
  {%- set g = {} -%}
  {%- for name, index in p.groups.items() -%}{%- do g.update({name: '_bloomery_ts.m[' ~ index ~ ']'}) -%}{%- endfor -%}
  {%- set value = bloomery.iso_timestamp_value(g, '_bloomery_ts.m is not null') | trim -%}
  (select case when _bloomery_ts.plain then cast(_bloomery_ts.x as timestamp) else
  {%- if safe %} {{ value }}
  {%- else %} case when _bloomery_ts.m is null and _bloomery_ts.x is not null
                   then {{ bloomery.timestamp_cast_error('_bloomery_ts.x') }}
              else {{ bloomery.timestamp_minus_minutes('cast(' ~ bloomery.iso_timestamp_local(g) ~ ' as timestamp)', bloomery.iso_timestamp_minutes(g)) }} end
  {%- endif %} end
   from (select x, plain, case when not plain then regexp_match(x, {{ bloomery.string_literal(p.regex) }}) end as m
         from (select x, coalesce(x ~ '^[1-9][0-9]{3}-[0-9]{2}-[0-9]{2}[T ]([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]$'
                                  and pg_input_is_valid(x, 'timestamp'), false) as plain
               from (select ({{ expr }})::text as x) as _bloomery_value) as _bloomery_plain) as _bloomery_ts)
{%- endmacro %}
