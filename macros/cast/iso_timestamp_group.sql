{#- One field of the pattern: its text, '' or NULL where the value does not have it. -#}
{% macro iso_timestamp_group(expr, name) -%}
  {{ return(adapter.dispatch('iso_timestamp_group', 'bloomery')(expr, name)) }}
{%- endmacro %}

{% macro default__iso_timestamp_group(expr, name) -%}{{ bloomery.no_portable_form("iso_timestamp_group", "a regex group extraction (one field of the ISO 8601 pattern)") }}{%- endmacro %}
