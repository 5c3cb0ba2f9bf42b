{% macro bigquery__json_path(expr, path) -%}
  json_query({{ expr }}, {{ bloomery.string_literal(path) }})
{%- endmacro %}

{#- No SPLIT_PART: SPLIT and a safe offset; past the last part is '' as on DuckDB. -#}
{% macro bigquery__split_part(expr, delimiter, index) -%}
  case when {{ expr }} is not null then coalesce(split({{ expr }}, {{ bloomery.string_literal(delimiter) }})[safe_ordinal({{ index }})], '') end
{%- endmacro %}

{#- REGEXP_EXTRACT returns the pattern's one capturing group, or the whole match without one;
    NULL without a match. -#}
{% macro bigquery__regex_extract(expr, pattern, group) -%}
  regexp_extract({{ expr }}, {{ bloomery.string_literal(pattern) }})
{%- endmacro %}

{#- strptime directives are BigQuery's own format elements. -#}
{% macro bigquery__parse_format(expr, format, type, safe) -%}
  cast({{ 'safe.' if safe }}parse_timestamp({{ bloomery.string_literal(format) }}, trim({{ expr }})) as {{ bloomery.type_name(type) }})
{%- endmacro %}

{#- wall-clock time in `zone` to a (UTC) timestamp -#}
{% macro bigquery__to_utc(expr, zone) -%}
  timestamp(datetime({{ expr }}), {{ bloomery.string_literal(zone) }})
{%- endmacro %}
