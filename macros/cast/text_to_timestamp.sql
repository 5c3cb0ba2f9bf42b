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
