{#- The engine's name for a spec type ({"name": "decimal", "precision": 12, "scale": 4}). -#}
{% macro type_name(type) -%}
  {{ return(adapter.dispatch('type_name', 'bloomery')(type)) }}
{%- endmacro %}

{% macro default__type_name(type) -%}
  {%- set names = {'string': 'varchar', 'int': 'bigint', 'bool': 'boolean', 'date': 'date',
                   'timestamp': 'timestamp', 'variant': 'json'} -%}
  {%- if type.name == 'decimal' -%}decimal({{ type.precision }},{{ type.scale }})
  {%- else -%}{{ names[type.name] }}{%- endif -%}
{%- endmacro %}


