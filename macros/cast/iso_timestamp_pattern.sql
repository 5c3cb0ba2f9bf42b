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
