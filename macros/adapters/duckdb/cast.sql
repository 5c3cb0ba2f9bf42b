{#- DuckDB: the match is bound once, as a struct of the fields (regexp_extract with names), by a
    one-element list_transform: a SQL expression has no `let`, and the generic form (default__text_to_timestamp,
    macros/cast/text_to_timestamp.sql) repeats the pattern once per field. -#}
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

{#- DuckDB's TRY_CAST: NULL where the cast fails. -#}
{% macro duckdb__safe_cast(expr, type) -%}
  try_cast({{ expr }} as {{ bloomery.type_name(type) }})
{%- endmacro %}
