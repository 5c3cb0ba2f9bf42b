{#- A parent entity read without a dbt ref, to break a cycle of referential rules: its rows as
    published by the previous run; none before the first one, and then every key is an orphan. -#}
{% macro published_relation(name) -%}
  {{ return(adapter.get_relation(database=this.database, schema=this.schema, identifier=name) if execute else none) }}
{%- endmacro %}
