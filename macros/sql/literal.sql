{#- Literals and identifiers taken from a spec. Every string a user wrote reaches SQL through
    `bloomery.string_literal` (quotes doubled) and every name through `adapter.quote`. -#}

{% macro string_literal(value) -%}
  {{ return(adapter.dispatch('string_literal', 'bloomery')(value)) }}
{%- endmacro %}

{% macro default__string_literal(value) -%}
  '{{ (value | string) | replace("'", "''") }}'
{%- endmacro %}


{% macro ident(name) -%}
  {{ return(adapter.quote(name)) }}
{%- endmacro %}

{% macro string_list(values) -%}
  {%- for v in values -%}{{ bloomery.string_literal(v) }}{{ ", " if not loop.last }}{%- endfor -%}
{%- endmacro %}

{#- A generic-test argument written by `bloomery compile`: inert JSON text (dbt renders test
    arguments as Jinja, so spec text never travels bare), read back exactly as the spec wrote it.
    A value that is not a string is a macro default and passes through. -#}
{% macro argument(value) -%}
  {{ return(fromjson(value) if value is string else value) }}
{%- endmacro %}
