{#- A WHERE condition selecting the rows of `relation` that meet `condition` (quality_split's
    narrow read of an incremental batch from bronze; the portable form is `condition` itself). -#}
{% macro rows_where(relation, condition) -%}
  {{ return(adapter.dispatch('rows_where', 'bloomery')(relation, condition)) }}
{%- endmacro %}

{% macro default__rows_where(relation, condition) -%}{{ return(condition) }}{%- endmacro %}
