{#- A generic-test argument written by `bloomery compile`: inert JSON text (dbt renders test
    arguments as Jinja, so spec text never travels bare), read back exactly as the spec wrote it.
    A value that is not a string is a macro default and passes through. -#}
{% macro argument(value) -%}
  {{ return(fromjson(value) if value is string else value) }}
{%- endmacro %}
