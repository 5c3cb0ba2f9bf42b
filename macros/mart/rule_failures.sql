{#- One row: `failed_<i>` = how many of `flagged`'s flag lists (column `names`) hold rule i;
    mart_data_quality's per-rule counts. -#}
{% macro rule_failures(flagged, rules) -%}
  {{ return(adapter.dispatch('rule_failures', 'bloomery')(flagged, rules)) }}
{%- endmacro %}

{#- Portable: every rule tests membership in every list. -#}
{% macro default__rule_failures(flagged, rules) -%}
  select
  {%- for r in rules %}
    coalesce(sum(case when {{ bloomery.flags_contain('names', r) }} then 1 else 0 end), 0) as {{ adapter.quote('failed_' ~ loop.index0) }}{{ "," if not loop.last }}
  {%- endfor %}
  from {{ flagged }}
{%- endmacro %}
