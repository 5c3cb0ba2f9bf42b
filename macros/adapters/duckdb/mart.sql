{#- Where a list unnests in the select list, the names are counted once, grouped: a membership
    test per rule per list cost five times as much at 10M rows on DuckDB. -#}
{% macro duckdb__rule_failures(flagged, rules) -%}
  with hits as (
    select name, count(*) as n from (select unnest(names) as name from {{ flagged }}) as u group by name
  )
  select
  {%- for r in rules %}
    coalesce((select n from hits where name = {{ bloomery.string_literal(r) }}), 0) as {{ adapter.quote('failed_' ~ loop.index0) }}{{ "," if not loop.last }}
  {%- endfor %}
{%- endmacro %}
