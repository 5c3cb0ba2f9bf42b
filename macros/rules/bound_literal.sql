{% macro bound_literal(bound, column_type) -%}
  {%- if bound.kind == 'number' -%}{{ bound.value }}
  {%- else -%}cast({{ bloomery.string_literal(bound.value) }} as {{ bloomery.type_name({'name': bound.kind}) }})
  {%- endif -%}
{%- endmacro %}
