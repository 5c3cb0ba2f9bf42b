{#- Every spark override of the package in one place: the engine's differences, and why. -#}

{% macro spark__type_name(type) -%}
  {%- set names = {'string': 'string', 'int': 'bigint', 'bool': 'boolean', 'date': 'date',
                   'timestamp': 'timestamp', 'variant': 'string'} -%}
  {%- if type.name == 'decimal' -%}decimal({{ type.precision }},{{ type.scale }})
  {%- else -%}{{ names[type.name] }}{%- endif -%}
{%- endmacro %}

{% macro spark__regex_match(expr, pattern) -%}
  ({{ expr }} rlike {{ bloomery.string_literal(pattern) }})
{%- endmacro %}

{#- Spark reads backslash as an escape inside string literals. -#}
{% macro spark__string_literal(value) -%}
  '{{ (value | string) | replace("\\", "\\\\") | replace("'", "\\'") }}'
{%- endmacro %}

