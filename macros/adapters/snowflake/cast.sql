{% macro snowflake__type_names() -%}
  {{ return({'string': 'varchar', 'int': 'bigint', 'bool': 'boolean', 'date': 'date',
             'timestamp': 'timestamp_ntz', 'variant': 'variant', 'decimal': 'number'}) }}
{%- endmacro %}

{#- TRY_CAST takes only a string operand: cast to VARCHAR first (a no-op on text). -#}
{% macro snowflake__safe_cast(expr, type) -%}
  try_cast(cast({{ expr }} as varchar) as {{ bloomery.type_name(type) }})
{%- endmacro %}

{#- text_to_timestamp: POSIX ERE has no `(?:`, so every group captures (the fields renumbered);
    REGEXP_SUBSTR's `e` flag returns a group; no interval arithmetic by a multiple, DATEADD. -#}
{% macro snowflake__iso_timestamp_group(expr, name) -%}
  {%- set p = bloomery.iso_timestamp_pattern(capture='all') -%}
  regexp_substr({{ expr }}, {{ bloomery.string_literal(p.regex) }}, 1, 1, 'e', {{ p.groups[name] }})
{%- endmacro %}

{% macro snowflake__timestamp_minus_minutes(ts, minutes) -%}
  dateadd(minute, -{{ minutes }}, {{ ts }})
{%- endmacro %}
