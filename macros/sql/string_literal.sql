{#- Literals and identifiers taken from a spec. Every string a user wrote reaches SQL through
    `bloomery.string_literal` (quotes doubled) and every name through `adapter.quote`. -#}

{% macro string_literal(value) -%}
  {{ return(adapter.dispatch('string_literal', 'bloomery')(value)) }}
{%- endmacro %}

{% macro default__string_literal(value) -%}
  '{{ (value | string) | replace("'", "''") }}'
{%- endmacro %}
