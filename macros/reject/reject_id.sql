{#- reject_id = sha256 hex of 'S' || len(src) || ':' || src || 'S' || len(id) || ':' || id:
    length-prefixed so no two (source, row) pairs can spell the same text; `_load_id` is left
    out on purpose, so a re-delivery lands on the same reject row. -#}
{% macro reject_id(source_relation, source_row_id) -%}
  {%- set s = bloomery.type_name({'name': 'string'}) -%}
  {%- set rid = 'cast(' ~ source_row_id ~ ' as ' ~ s ~ ')' -%}
  {{ bloomery.sha256_hex(bloomery.string_literal('S' ~ (source_relation | length) ~ ':' ~ source_relation ~ 'S') ~ ' || cast(length(' ~ rid ~ ') as ' ~ s ~ ") || ':' || " ~ rid) }}
{%- endmacro %}
