{#- Trino's try_cast: NULL where the cast fails. -#}
{% macro trino__safe_cast(expr, type) -%}
  try_cast({{ expr }} as {{ bloomery.type_name(type) }})
{%- endmacro %}

{#- One field of the ISO 8601 pattern (text_to_timestamp): regexp_extract's group n. -#}
{% macro trino__iso_timestamp_group(expr, name) -%}
  {%- set p = bloomery.iso_timestamp_pattern() -%}
  regexp_extract({{ expr }}, {{ bloomery.string_literal(p.regex) }}, {{ p.groups[name] }})
{%- endmacro %}
