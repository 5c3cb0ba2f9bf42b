{% macro duckdb__json_malformed(expr) -%}({{ expr }} is not null and not json_valid({{ expr }})){%- endmacro %}

{#- strptime directives as DuckDB reads them; try_strptime yields NULL where strptime raises. -#}
{% macro duckdb__parse_format(expr, format, type, safe) -%}
  {%- set fn = 'try_strptime' if safe else 'strptime' -%}
  cast({{ fn }}({{ expr }}, {{ bloomery.string_literal(format) }}) as {{ bloomery.type_name(type) }})
{%- endmacro %}

{% macro duckdb__regex_extract(expr, pattern, group) -%}{{ bloomery._regexp_extract_call(expr, pattern, group) }}{%- endmacro %}

{% macro duckdb__split_part(expr, delimiter, index) -%}{{ bloomery._split_part_call(expr, delimiter, index) }}{%- endmacro %}

{% macro duckdb__to_utc(expr, zone) -%}
  cast(({{ expr }} at time zone {{ bloomery.string_literal(zone) }}) at time zone 'UTC' as {{ bloomery.type_name({'name': 'timestamp'}) }})
{%- endmacro %}

{% macro duckdb__json_path(expr, path) -%}
  json_extract({{ expr }}, {{ bloomery.string_literal(path) }})
{%- endmacro %}

{% macro duckdb__json_scalar(expr, path) -%}
  json_extract_string({{ expr }}, {{ bloomery.string_literal(path) }})
{%- endmacro %}
