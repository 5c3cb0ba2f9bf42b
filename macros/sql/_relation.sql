{#- The relation a model (or snapshot) generated for this project was built as; none when it was
    not built yet. Its own file because the run-operations replay and purge_rejects both read it. -#}
{% macro _relation(name) -%}
  {%- set node = bloomery._node(name) -%}
  {%- if node is none -%}{{ return(none) }}{%- endif -%}
  {{ return(adapter.get_relation(database=node.database, schema=node.schema, identifier=node.alias)) }}
{%- endmacro %}
