{% macro bigquery__type_names() -%}
  {{ return({'string': 'string', 'int': 'int64', 'bool': 'bool', 'date': 'date',
             'timestamp': 'timestamp', 'variant': 'json', 'decimal': 'numeric'}) }}
{%- endmacro %}

{#- NUMERIC(P, S) holds S <= 9 and P - S <= 29; wider decimals are BIGNUMERIC(P, S). -#}
{% macro bigquery__type_name(type) -%}
  {%- if type.name == 'decimal' -%}
    {%- set p, s = type.precision | int, type.scale | int -%}
    {{ 'numeric' if (s <= 9 and p - s <= 29) else 'bignumeric' }}({{ p }}, {{ s }})
  {%- else -%}{{ bloomery.default__type_name(type) }}{%- endif -%}
{%- endmacro %}

{% macro bigquery__safe_cast(expr, type) -%}
  safe_cast({{ expr }} as {{ bloomery.type_name(type) }})
{%- endmacro %}

{#- text_to_timestamp: REGEXP_EXTRACT takes a pattern with at most one capturing group, so each
    field is read with a pattern in which only that field captures. -#}
{% macro bigquery__iso_timestamp_group(expr, name) -%}
  {%- set p = bloomery.iso_timestamp_pattern(capture=name) -%}
  regexp_extract({{ expr }}, {{ bloomery.string_literal(p.regex) }})
{%- endmacro %}

{% macro bigquery__timestamp_minus_minutes(ts, minutes) -%}
  timestamp_sub({{ ts }}, interval {{ minutes }} minute)
{%- endmacro %}
