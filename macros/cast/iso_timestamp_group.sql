{#- One field of the pattern: its text, '' or NULL where the value does not have it. -#}
{% macro iso_timestamp_group(expr, name) -%}
  {{ return(adapter.dispatch('iso_timestamp_group', 'bloomery')(expr, name)) }}
{%- endmacro %}
{#- No portable (ISO SQL) form: each engine implements it under macros/adapters/<engine>/. -#}
{% macro default__iso_timestamp_group(expr, name) -%}
  {{ exceptions.raise_compiler_error("bloomery: a regex group extraction (one field of the ISO 8601 pattern) has no portable SQL form; implement <engine>__iso_timestamp_group (see macros/adapters/)") }}
{%- endmacro %}
