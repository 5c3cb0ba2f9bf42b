{#- A literal from the spec, as a value of a spec type. Python checked at compile time that it
    converts, so the cast here can never fail at run time. -#}
{% macro typed_literal(value, type) -%}
  {%- if type.name == 'string' -%}{{ bloomery.string_literal(value) }}
  {%- elif type.name == 'int' -%}{{ value | int }}
  {%- else -%}cast({{ bloomery.string_literal(value) }} as {{ bloomery.type_name(type) }})
  {%- endif -%}
{%- endmacro %}
