{#- The manifest node of a model (or, for a type 2 entity, the snapshot) generated for this project. -#}
{% macro _node(name) -%}
  {%- for node in graph.nodes.values() if node.resource_type in ('model', 'snapshot') and node.name == name -%}
    {{ return(node) }}
  {%- endfor -%}
  {{ return(none) }}
{%- endmacro %}
