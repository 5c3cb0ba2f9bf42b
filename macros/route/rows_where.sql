{#- A WHERE condition selecting the rows of `relation` that meet any of `conditions` (quality_split's
    narrow read of an incremental batch from bronze; the portable form is their disjunction). -#}
{% macro rows_where(relation, conditions) -%}
  {{ return(adapter.dispatch('rows_where', 'bloomery')(relation, conditions)) }}
{%- endmacro %}

{% macro default__rows_where(relation, conditions) -%}
  {{ return('(' ~ conditions | join(')\n     or (') ~ ')') }}
{%- endmacro %}
