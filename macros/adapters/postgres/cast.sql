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

{#- text_to_timestamp (macros/cast/text_to_timestamp.sql). Outside quality a failure raises: a
    value of the wrong shape as a cast of the message, one that is no calendar date with the
    cast's own error.
    The common spelling is read inline: a value of 19 characters that the engine's input check
    accepts and that its cast prints back unchanged (`T` read as the blank) is exactly
    `YYYY-MM-DD hh:mm:ss` with real hours, minutes and seconds: `24:00:00` and `23:59:60` print
    as the next day or minute, a fraction, an offset or a fifth year digit would not fit, so all
    of those take the full match and are judged there. The printed form is ISO's (the DateStyle
    the suite pins): under another DateStyle nothing prints back the same, and every value takes
    the full match, slower but with the same results. The round trip costs about half of a `~`
    against a shape pattern (0.8 s against 1.6 s a million values with the cast).
    Every other value takes the full match, in a scalar subquery that the CASE only runs for
    those rows: the pattern is matched once per value (`offset 0` keeps the match in its own
    subquery; pulled up, every read of the match array would run `regexp_match` again) and its
    fields are read from the array (as parse_format does). Wrapping the common spelling in that
    subquery too cost 2.4 s a million values: PostgreSQL pulled it up and ran the shape test at
    each use (docs/performance.md). -#}
{% macro postgres__text_to_timestamp(expr, safe) -%}
  {%- set p = bloomery.iso_timestamp_pattern() -%}
  {%- set x = '(' ~ expr ~ ')::text' -%}
  {%- set g = {} -%}
  {%- for name, index in p.groups.items() -%}{%- do g.update({name: '_bloomery_ts.m[' ~ index ~ ']'}) -%}{%- endfor -%}
  {%- set value = bloomery.iso_timestamp_value(g, '_bloomery_ts.m is not null') | trim -%}
  (case when {{ x }} is null then cast(null as timestamp)
        when length({{ x }}) = 19 and pg_input_is_valid({{ x }}, 'timestamp')
             and cast(cast({{ x }} as timestamp) as text) = replace({{ x }}, 'T', ' ') collate "C"
        then cast({{ x }} as timestamp)
   else (select
  {%- if safe %} {{ value }}
  {%- else %} case when _bloomery_ts.m is null and _bloomery_ts.x is not null
                   then {{ bloomery.timestamp_cast_error('_bloomery_ts.x') }}
              else {{ bloomery.timestamp_minus_minutes('cast(' ~ bloomery.iso_timestamp_local(g) ~ ' as timestamp)', bloomery.iso_timestamp_minutes(g)) }} end
  {%- endif %}
   from (select x, regexp_match(x, {{ bloomery.string_literal(p.regex) }}) as m
         from (select {{ x }} as x) as _bloomery_value offset 0) as _bloomery_ts) end)
{%- endmacro %}
