{#- `mapping`, `source`: the entity's one mapping and its bronze relation, by name (a hook does
    not see the model's `entity`), for the verdict columns of the kept rows in the view. -#}
{% macro publish_staged(mapping, source, staged) -%}
  {{ return(adapter.dispatch('publish_staged', 'bloomery')(mapping, source, staged)) }}
{%- endmacro %}

{% macro default__publish_staged(mapping, source, staged) -%}select 1{%- endmacro %}
