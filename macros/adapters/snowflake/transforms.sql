{#- GET_PATH reads `a.b` and `"quoted"` members, without the `$.`. -#}
{% macro snowflake__json_scalar(expr, path) -%}
  get_path(try_parse_json({{ expr }}), {{ bloomery.string_literal(path[2:]) }})::varchar
{%- endmacro %}

{% macro snowflake__json_path(expr, path) -%}
  get_path(try_parse_json({{ expr }}), {{ bloomery.string_literal(path[2:]) }})
{%- endmacro %}

{#- e-flag: the group's text, NULL without a match. Group 0 is the whole match. -#}
{% macro snowflake__regex_extract(expr, pattern, group) -%}
  {%- if group | int == 0 -%}regexp_substr({{ expr }}, {{ bloomery.string_literal(pattern) }})
  {%- else -%}regexp_substr({{ expr }}, {{ bloomery.string_literal(pattern) }}, 1, 1, 'e', {{ group }}){%- endif -%}
{%- endmacro %}

{#- strptime directives as Snowflake format elements; TRY_TO_TIMESTAMP yields NULL on no parse. -#}
{% macro snowflake__parse_format(expr, format, type, safe) -%}
  {%- set f = format | replace('%Y', 'YYYY') | replace('%m', 'MM') | replace('%d', 'DD') | replace('%H', 'HH24') | replace('%M', 'MI') | replace('%S', 'SS') | replace('%%', '%') -%}
  cast({{ 'try_to_timestamp' if safe else 'to_timestamp' }}(trim({{ expr }}), {{ bloomery.string_literal(f) }}) as {{ bloomery.type_name(type) }})
{%- endmacro %}

{% macro snowflake__to_utc(expr, zone) -%}
  convert_timezone({{ bloomery.string_literal(zone) }}, 'UTC', {{ expr }})
{%- endmacro %}

{% macro snowflake__split_part(expr, delimiter, index) -%}{{ bloomery._split_part_call(expr, delimiter, index) }}{%- endmacro %}
