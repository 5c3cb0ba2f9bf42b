{#- One field of the pattern: its text, '' or NULL where the value does not have it. -#}
{% macro iso_timestamp_group(expr, name) -%}
  {{ return(adapter.dispatch('iso_timestamp_group', 'bloomery')(expr, name)) }}
{%- endmacro %}
{% macro default__iso_timestamp_group(expr, name) -%}
  {%- set p = bloomery.iso_timestamp_pattern() -%}
  regexp_extract({{ expr }}, {{ bloomery.string_literal(p.regex) }}, {{ p.groups[name] }})
{%- endmacro %}
