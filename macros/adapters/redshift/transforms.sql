{#- The Postgres port, except a cast to variant: no jsonb here, the JSON stays text. -#}
{% macro redshift__transform_step(expr, step, safe) -%}
  {%- set source = step.get('from_type') -%}
  {%- if step.op == 'cast' and source and source != 'variant' and step.type.name == 'variant' -%}cast({{ expr }} as varchar(65535))
  {%- else -%}{{ bloomery.postgres__transform_step(expr, step, safe) }}
  {%- endif -%}
{%- endmacro %}

{#- JSON_EXTRACT_PATH_TEXT(..., true) yields NULL for a document that is not JSON: no guard (the
    PostgreSQL one calls pg_input_is_valid, which Redshift lacks). -#}
{% macro redshift__json_malformed(expr) -%}{%- endmacro %}

{#- JSON_EXTRACT_PATH_TEXT takes the path as one argument per member. -#}
{% macro redshift__json_scalar(expr, path) -%}
  json_extract_path_text({{ expr }}, {{ bloomery._redshift_path_args(path) }}, true)
{%- endmacro %}

{% macro redshift__json_path(expr, path) -%}
  json_extract_path_text({{ expr }}, {{ bloomery._redshift_path_args(path) }}, true)
{%- endmacro %}

{% macro _redshift_path_args(path) -%}
  {%- if path.startswith('$."') and path.endswith('"') -%}{%- set members = [fromjson(path[2:])] -%}
  {%- else -%}{%- set members = path[2:].split('.') -%}{%- endif -%}
  {{ return(bloomery._quote_all(members)) }}
{%- endmacro %}

{% macro _quote_all(values) -%}
  {%- set out = [] -%}{%- for v in values -%}{%- do out.append(bloomery.string_literal(v)) -%}{%- endfor -%}
  {{ return(out | join(', ')) }}
{%- endmacro %}

{#- REGEXP_SUBSTR extracts the whole match, or with 'e' the first group. -#}
{% macro redshift__regex_extract(expr, pattern, group) -%}
  {%- if group | int == 0 -%}regexp_substr({{ expr }}, {{ bloomery.string_literal(pattern) }})
  {%- elif group | int == 1 -%}regexp_substr({{ expr }}, {{ bloomery.string_literal(pattern) }}, 1, 1, 'e')
  {%- else -%}{{ exceptions.raise_compiler_error("bloomery.regex_extract: Redshift extracts the whole match or the first group only, not group " ~ group) }}
  {%- endif -%}
{%- endmacro %}

{#- TO_TIMESTAMP raises on a value it can not read and has no TRY_ form: the value must first have
    the format's shape (the Postgres port's anchored regex). A value of the right shape that is no
    calendar date still raises there (docs/dialects.md). -#}
{% macro redshift__parse_format(expr, format, type, safe) -%}
  {%- set shape = bloomery._pg_format_shape(format) -%}
  {%- set f = format | replace('%Y', 'YYYY') | replace('%m', 'MM') | replace('%d', 'DD') | replace('%H', 'HH24') | replace('%M', 'MI') | replace('%S', 'SS') | replace('%%', '%') -%}
  {%- set value = 'to_timestamp(trim(' ~ expr ~ '), ' ~ bloomery.string_literal(f) ~ ')' -%}
  {%- if safe -%}cast(case when {{ expr }} ~ {{ bloomery.string_literal(shape.regex) }} then {{ value }} end as {{ bloomery.type_name(type) }})
  {%- else -%}cast({{ value }} as {{ bloomery.type_name(type) }}){%- endif -%}
{%- endmacro %}

{% macro redshift__to_utc(expr, zone) -%}
  convert_timezone({{ bloomery.string_literal(zone) }}, 'UTC', {{ expr }})
{%- endmacro %}
