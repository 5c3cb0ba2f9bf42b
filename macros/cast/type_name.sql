{#- The engine's name for a spec type ({"name": "decimal", "precision": 12, "scale": 4}). Engines
    differ in the words, not the shape: each spells its words in `type_names` (the default's are
    SQL's, with DuckDB's json for a variant), and only a type whose shape differs (BigQuery's two
    decimals) overrides type_name itself. -#}
{% macro type_name(type) -%}
  {{ return(adapter.dispatch('type_name', 'bloomery')(type)) }}
{%- endmacro %}

{% macro default__type_name(type) -%}
  {%- set names = bloomery.type_names() -%}
  {%- if type.name == 'decimal' -%}{{ names['decimal'] }}({{ type.precision }},{{ type.scale }})
  {%- else -%}{{ names[type.name] }}{%- endif -%}
{%- endmacro %}
