{#- A table a run-operation writes its intermediate results to, dropped before it returns. -#}
{% macro scratch_relation(identifier) -%}
  {{ return(adapter.dispatch('scratch_relation', 'bloomery')(identifier)) }}
{%- endmacro %}

{% macro default__scratch_relation(identifier) -%}
  {{ return(api.Relation.create(identifier=identifier)) }}
{%- endmacro %}
