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

{% macro postgres__type_name(type) -%}
  {%- set names = {'string': 'text', 'int': 'bigint', 'bool': 'boolean', 'date': 'date',
                   'timestamp': 'timestamp', 'variant': 'jsonb'} -%}
  {%- if type.name == 'decimal' -%}numeric({{ type.precision }},{{ type.scale }})
  {%- else -%}{{ names[type.name] }}{%- endif -%}
{%- endmacro %}

{% macro spark__type_name(type) -%}
  {%- set names = {'string': 'string', 'int': 'bigint', 'bool': 'boolean', 'date': 'date',
                   'timestamp': 'timestamp', 'variant': 'string'} -%}
  {%- if type.name == 'decimal' -%}decimal({{ type.precision }},{{ type.scale }})
  {%- else -%}{{ names[type.name] }}{%- endif -%}
{%- endmacro %}
