{#- Text -> zoneless UTC timestamp: the one cast of text to `timestamp` the product makes (a
    `parse_ts: ISO8601` step, a string mapped onto a timestamp field, `_ingested_at` in the
    ingestion-metadata audit, dedupe's order, the batch watermark, first_seen/last_seen, source
    freshness). `safe_cast`/`hard_cast` to timestamp come here, so their callers agree by
    construction.

    Why not the engine's own cast: each one drops an offset differently (DuckDB and PostgreSQL keep
    the wall-clock time of `12:00:00+01:00` and drop the offset, PostgreSQL also drops a zone name,
    Spark converts), and their accept sets differ (`t` separator, month-first text, `epoch`). So the
    shape is the product's, one anchored pattern on every engine:

        YYYY-MM-DD[(T|t|' ')hh:mm[:ss[.f...]][Z|z|(+|-)hh[[:]mm]]]      blanks around it ignored

    - an offset is honoured: the value is converted to UTC (`12:00:00+01:00` is 11:00);
    - fractional seconds are kept to the microsecond; further digits are dropped (not rounded);
    - hours 00-23, minutes and seconds 00-59, year 0001-9999: `24:00:00` and `23:59:60` fail;
    - the calendar (`2026-02-30`) is judged by the engine's own cast of the rewritten value,
      `YYYY-MM-DD hh:mm:ss.f`, a spelling every engine reads the same way;
    - anything else (`05/16/2023`, `20230517`, `epoch`, `now`, a zone name) is a failure.
    `safe` yields NULL on failure (the coercion-failure marker); otherwise a failure raises, naming
    the value. A non-text operand is cast to text first. -#}
{% macro text_to_timestamp(expr, safe) -%}
  {{ return(adapter.dispatch('text_to_timestamp', 'bloomery')(expr, safe)) }}
{%- endmacro %}

{% macro default__text_to_timestamp(expr, safe) -%}
  {%- set x = 'cast(' ~ expr ~ ' as ' ~ bloomery.type_name({'name': 'string'}) ~ ')' -%}
  {%- set g = {} -%}
  {%- for name in bloomery.iso_timestamp_fields() -%}
    {%- do g.update({name: bloomery.iso_timestamp_group(x, name) | trim}) -%}
  {%- endfor -%}
  {%- set value = bloomery.iso_timestamp_value(g, "coalesce(" ~ g.date ~ ", '') <> ''") | trim -%}
  {%- if safe -%}{{ value }}
  {%- else -%}coalesce({{ value }}, case when {{ x }} is not null then {{ bloomery.timestamp_cast_error(x) }} end)
  {%- endif -%}
{%- endmacro %}

{#- DuckDB: the match is bound once, as a struct of the fields (regexp_extract with names), by a
    one-element list_transform: a SQL expression has no `let`, and the generic form above repeats
    the pattern once per field. -#}
{% macro duckdb__text_to_timestamp(expr, safe) -%}
  {%- set x = 'cast(' ~ expr ~ ' as varchar)' -%}
  {%- set p = bloomery.iso_timestamp_pattern() -%}
  {%- set fields = bloomery.iso_timestamp_fields() -%}
  {%- set g = {} -%}
  {%- for name in fields -%}{%- do g.update({name: '_bloomery_ts.' ~ name}) -%}{%- endfor -%}
  {%- set value = bloomery.iso_timestamp_value(g, "_bloomery_ts.date <> ''") | trim -%}
  {%- set bound = 'list_transform([regexp_extract(' ~ x ~ ', ' ~ bloomery.string_literal(p.regex) ~ ", ['"
                  ~ fields | join("', '") ~ "'])], lambda _bloomery_ts: " ~ value ~ ')[1]' -%}
  {#- the common spelling (no offset, no blanks, `T` or a space, year 1000 or later) straight to
      TRY_CAST, which reads it exactly as the rewrite would: the general form costs about ten
      times as much per value (measured on 1M `_ingested_at` values) -#}
  {%- set plain = "regexp_full_match(" ~ x ~ ", '[1-9][0-9]{3}-[0-9]{2}-[0-9]{2}([ T]([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]([.][0-9]{1,6})?)?')" -%}
  {%- set bound = 'case when ' ~ plain ~ ' then try_cast(' ~ x ~ ' as timestamp) else ' ~ bound ~ ' end' -%}
  {%- if safe -%}{{ bound }}
  {%- else -%}coalesce({{ bound }}, case when {{ x }} is not null then {{ bloomery.timestamp_cast_error(x) }} end)
  {%- endif -%}
{%- endmacro %}

{#- The captured fields, in the order of the pattern's capturing groups. -#}
{% macro iso_timestamp_fields() -%}
  {{ return(['date', 'hour', 'minute', 'second', 'fraction', 'sign', 'offset_hour', 'offset_minute']) }}
{%- endmacro %}

{#- The pattern, written with `(?:` for structure and `(` for the fields above. `blank` is the
    engine's class of white space; `capture` is 'all' for an engine without `(?:` (every group
    captures, the fields are renumbered), or a field name for an engine that extracts one group
    per call (only that field captures). Returns {"regex": text, "groups": {field: index}}. -#}
{% macro iso_timestamp_pattern(blank='[[:space:]]', capture=none) -%}
  {%- set year = '(?:[0-9]{3}[1-9]|[0-9]{2}[1-9][0-9]|[0-9][1-9][0-9]{2}|[1-9][0-9]{3})' -%}
  {%- set written = '^' ~ blank ~ '*(' ~ year ~ '-[0-9]{2}-[0-9]{2})'
        ~ '(?:[Tt ]([01][0-9]|2[0-3]):([0-5][0-9])(?::([0-5][0-9])(?:[.]([0-9]{1,6})[0-9]*)?)?'
        ~ '(?:[Zz]|([+-])([01][0-9]|2[0-3])(?::?([0-5][0-9]))?)?)?' ~ blank ~ '*$' -%}
  {%- set fields = bloomery.iso_timestamp_fields() -%}
  {%- set ns = namespace(out='', field=0, group=0, skip=0) -%}
  {%- set groups = {} -%}
  {%- for i in range(written | length) -%}
    {%- set ch = written[i] -%}
    {%- if ns.skip > 0 -%}{%- set ns.skip = ns.skip - 1 -%}
    {%- elif ch == '(' and written[i + 1:i + 3] == '?:' -%}
      {%- set ns.skip = 2 -%}
      {%- if capture == 'all' -%}{%- set ns.group = ns.group + 1 -%}{%- set ns.out = ns.out ~ '(' -%}
      {%- else -%}{%- set ns.out = ns.out ~ '(?:' -%}{%- endif -%}
    {%- elif ch == '(' -%}
      {%- set name = fields[ns.field] -%}
      {%- set ns.field = ns.field + 1 -%}
      {%- if capture in (none, 'all') or capture == name -%}
        {%- set ns.group = ns.group + 1 -%}
        {%- do groups.update({name: ns.group}) -%}
        {%- set ns.out = ns.out ~ '(' -%}
      {%- else -%}{%- set ns.out = ns.out ~ '(?:' -%}{%- endif -%}
    {%- else -%}{%- set ns.out = ns.out ~ ch -%}{%- endif -%}
  {%- endfor -%}
  {{ return({'regex': ns.out, 'groups': groups}) }}
{%- endmacro %}

{#- One field of the pattern: its text, '' or NULL where the value does not have it. -#}
{% macro iso_timestamp_group(expr, name) -%}
  {{ return(adapter.dispatch('iso_timestamp_group', 'bloomery')(expr, name)) }}
{%- endmacro %}
{% macro default__iso_timestamp_group(expr, name) -%}
  {%- set p = bloomery.iso_timestamp_pattern() -%}
  regexp_extract({{ expr }}, {{ bloomery.string_literal(p.regex) }}, {{ p.groups[name] }})
{%- endmacro %}

{#- The UTC timestamp from the fields `g` (SQL text each), NULL unless `matched` and the engine's
    cast reads the rewritten value. -#}
{% macro iso_timestamp_value(g, matched) -%}
  {#- the engine's own NULL-on-failure cast (not `bloomery.safe_cast`, which would come back here) -#}
  {%- set ts = adapter.dispatch('safe_cast', 'bloomery')(bloomery.iso_timestamp_local(g), {'name': 'timestamp'}) | trim -%}
  case when {{ matched }} then {{ bloomery.timestamp_minus_minutes(ts, bloomery.iso_timestamp_minutes(g)) }} end
{%- endmacro %}

{#- `YYYY-MM-DD hh:mm:ss.f`, the missing parts zero: the local (wall-clock) time of the value. -#}
{% macro iso_timestamp_local(g) -%}
  {{ return(g.date ~ " || ' ' || " ~ bloomery.iso_timestamp_default(g.hour, '00') ~ " || ':' || " ~ bloomery.iso_timestamp_default(g.minute, '00') ~ " || ':' || "
            ~ bloomery.iso_timestamp_default(g.second, '00') ~ " || '.' || " ~ bloomery.iso_timestamp_default(g.fraction, '0')) }}
{%- endmacro %}

{#- The offset in minutes east of UTC (0 without one, or with Z): sign and digits read as one
    signed integer each, `+01` and `+30`. -#}
{% macro iso_timestamp_minutes(g) -%}
  {%- set int = bloomery.type_name({'name': 'int'}) -%}
  {%- set sign = bloomery.iso_timestamp_default(g.sign, '+') -%}
  {{ return('(cast(' ~ sign ~ ' || ' ~ bloomery.iso_timestamp_default(g.offset_hour, '00') ~ ' as ' ~ int ~ ') * 60 + cast('
            ~ sign ~ ' || ' ~ bloomery.iso_timestamp_default(g.offset_minute, '00') ~ ' as ' ~ int ~ '))') }}
{%- endmacro %}

{% macro iso_timestamp_default(expr, default) -%}
  {{ return("coalesce(nullif(" ~ expr ~ ", ''), '" ~ default ~ "')") }}
{%- endmacro %}

{#- A timestamp `minutes` (an integer expression) earlier: local time at an offset, to UTC. -#}
{% macro timestamp_minus_minutes(ts, minutes) -%}
  {{ return(adapter.dispatch('timestamp_minus_minutes', 'bloomery')(ts, minutes)) }}
{%- endmacro %}
{% macro default__timestamp_minus_minutes(ts, minutes) -%}
  ({{ ts }} - {{ minutes }} * interval '1' minute)
{%- endmacro %}

{#- Raise, naming the value: a cast of the message itself, which no engine reads as a timestamp
    (produce-or-raise outside the quality system). Typed as a timestamp. -#}
{% macro timestamp_cast_error(expr) -%}
  {{ return(adapter.dispatch('timestamp_cast_error', 'bloomery')(expr)) }}
{%- endmacro %}
{% macro default__timestamp_cast_error(expr) -%}
  cast('bloomery: value ' || {{ expr }} || ' is not an ISO 8601 timestamp' as {{ bloomery.type_name({'name': 'timestamp'}) }})
{%- endmacro %}
