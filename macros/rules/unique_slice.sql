{#- The values that delimit a `unique` rule's slice (the entity's `partition_by`), each column
    read through `prefix`: the column itself, or the start of its time bucket for `days(col)`,
    `months(col)`, `years(col)` and `hours(col)`, so that two rows of one day share a slice
    although their timestamps differ. -#}
{% macro unique_slice(rule, prefix='') -%}
  {%- set out = [] -%}
  {%- for p in rule.get('slice', []) -%}
    {%- set expr = prefix ~ adapter.quote(p.column) -%}
    {%- do out.append(bloomery.time_bucket(expr, p.bucket) | trim if p.bucket else expr) -%}
  {%- endfor -%}
  {{ return(out) }}
{%- endmacro %}
