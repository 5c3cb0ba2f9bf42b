{% macro trino__json_scalar(expr, path) -%}
  json_extract_scalar({{ expr }}, {{ bloomery.string_literal(bloomery._bracket_json_path(path)) }})
{%- endmacro %}

{% macro trino__json_path(expr, path) -%}
  json_extract({{ expr }}, {{ bloomery.string_literal(path) }})
{%- endmacro %}

{#- `$."name"` (a quoted member) as the bracket form `$["name"]`, which every JSONPath reader takes. -#}
{% macro _bracket_json_path(path) -%}
  {%- if path.startswith('$."') and path.endswith('"') -%}{{ return('$[' ~ path[2:] ~ ']') }}{%- endif -%}
  {{ return(path) }}
{%- endmacro %}

{#- strptime directives in Trino's MySQL-style date_parse (%i minutes, %s seconds); try() makes a
    value that does not parse NULL. -#}
{% macro trino__parse_format(expr, format, type, safe) -%}
  {%- set f = format | replace('%M', '%i') | replace('%S', '%s') -%}
  {%- set value = 'date_parse(trim(' ~ expr ~ '), ' ~ bloomery.string_literal(f) ~ ')' -%}
  cast({{ 'try(' ~ value ~ ')' if safe else value }} as {{ bloomery.type_name(type) }})
{%- endmacro %}

{% macro trino__to_utc(expr, zone) -%}
  cast(with_timezone({{ expr }}, {{ bloomery.string_literal(zone) }}) at time zone 'UTC' as timestamp)
{%- endmacro %}

{% macro trino__regex_extract(expr, pattern, group) -%}{{ bloomery._regexp_extract_call(expr, pattern, group) }}{%- endmacro %}

{% macro trino__split_part(expr, delimiter, index) -%}{{ bloomery._split_part_call(expr, delimiter, index) }}{%- endmacro %}
