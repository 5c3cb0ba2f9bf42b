{#- Every snowflake override of the package in one place: the engine's differences, and why.
    Snowflake is rendered and parsed (tests/dialects), not run: no server here. -#}

{% macro snowflake__type_names() -%}
  {{ return({'string': 'varchar', 'int': 'bigint', 'bool': 'boolean', 'date': 'date',
             'timestamp': 'timestamp_ntz', 'variant': 'variant', 'decimal': 'number'}) }}
{%- endmacro %}

{#- TRY_CAST takes only a string operand: cast to VARCHAR first (a no-op on text). -#}
{% macro snowflake__safe_cast(expr, type) -%}
  try_cast(cast({{ expr }} as varchar) as {{ bloomery.type_name(type) }})
{%- endmacro %}

{#- Snowflake reads backslash as an escape inside string literals. -#}
{% macro snowflake__string_literal(value) -%}
  '{{ (value | string) | replace("\\", "\\\\") | replace("'", "\\'") }}'
{%- endmacro %}

{#- REGEXP_LIKE matches the whole string: the subset's mandatory anchors make that the same test. -#}
{% macro snowflake__regex_match(expr, pattern) -%}
  regexp_like({{ expr }}, {{ bloomery.string_literal(pattern) }})
{%- endmacro %}

{% macro snowflake__flags_empty() -%}{{ return('array_construct()') }}{%- endmacro %}
{% macro snowflake__flags_of(name_literal) -%}{{ return('array_construct(' ~ name_literal ~ ')') }}{%- endmacro %}
{% macro snowflake__flags_concat(left, right) -%}{{ return('array_cat(' ~ left ~ ', ' ~ right ~ ')') }}{%- endmacro %}

{% macro snowflake__flags_size(expr) -%}array_size({{ expr }}){%- endmacro %}

{% macro snowflake__flags_contain(expr, name) -%}array_contains(to_variant({{ bloomery.string_literal(name) }}), {{ expr }}){%- endmacro %}

{% macro snowflake__flags_text(expr) -%}array_to_string({{ expr }}, ','){%- endmacro %}

{% macro snowflake__sha256_hex(expr) -%}sha2({{ expr }}, 256){%- endmacro %}

{#- object_construct drops null values; the _keep_null form keeps the key. -#}
{% macro snowflake__json_object(columns, prefix, column_prefix) -%}
  to_json(object_construct_keep_null({% for c in columns | sort %}{{ bloomery.string_literal(c) }}, {{ prefix }}{{ adapter.quote(column_prefix ~ c) }}{{ ", " if not loop.last }}{% endfor %}))
{%- endmacro %}

{#- GET_PATH reads `a.b` and `"quoted"` members, without the `$.`. -#}
{% macro snowflake__json_scalar(expr, path) -%}
  get_path(try_parse_json({{ expr }}), {{ bloomery.string_literal(path[2:]) }})::varchar
{%- endmacro %}

{% macro snowflake__json_path(expr, path) -%}
  get_path(try_parse_json({{ expr }}), {{ bloomery.string_literal(path[2:]) }})
{%- endmacro %}

{% macro snowflake__nfc_normalize(expr) -%}
  {{ exceptions.raise_compiler_error("bloomery: Snowflake has no Unicode normalization function, so a `normalize` rule can not run there (bloomery compile --target-dialect snowflake refuses it).") }}
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

{#- text_to_timestamp: POSIX ERE has no `(?:`, so every group captures (the fields renumbered);
    REGEXP_SUBSTR's `e` flag returns a group; no interval arithmetic by a multiple, DATEADD. -#}
{% macro snowflake__iso_timestamp_group(expr, name) -%}
  {%- set p = bloomery.iso_timestamp_pattern(capture='all') -%}
  regexp_substr({{ expr }}, {{ bloomery.string_literal(p.regex) }}, 1, 1, 'e', {{ p.groups[name] }})
{%- endmacro %}

{% macro snowflake__timestamp_minus_minutes(ts, minutes) -%}
  dateadd(minute, -{{ minutes }}, {{ ts }})
{%- endmacro %}
