{#- Every redshift override of the package in one place. dbt dispatches redshift__ first, then
    postgres__ (dbt-redshift declares dbt-postgres as its parent), then default__: what is not
    here is the PostgreSQL port's SQL. Redshift is rendered and parsed (tests/dialects), not run. -#}

{#- JSON_EXTRACT_PATH_TEXT(..., true) yields NULL for a document that is not JSON: no guard (the
    PostgreSQL one calls pg_input_is_valid, which Redshift lacks). -#}
{% macro redshift__json_malformed(expr) -%}{%- endmacro %}

{#- Redshift reports itself as PostgreSQL 8.0: the PostgreSQL version check does not apply. -#}
{% macro redshift__assert_engine_supported() -%}{%- endmacro %}

{#- TEXT is VARCHAR(256) on Redshift: a reject payload needs the widest VARCHAR. -#}
{% macro redshift__type_names() -%}
  {{ return({'string': 'varchar(65535)', 'int': 'bigint', 'bool': 'boolean', 'date': 'date',
             'timestamp': 'timestamp', 'variant': 'varchar(65535)', 'decimal': 'numeric'}) }}
{%- endmacro %}

{#- Redshift has TRY_CAST (no pg_input_is_valid). -#}
{% macro redshift__safe_cast(expr, type) -%}
  try_cast({{ expr }} as {{ bloomery.type_name(type) }})
{%- endmacro %}

{#- No arrays in plain SQL: the comma-string fallback. Names in lexicographic order, the leading
    comma trimmed, '' when clean; membership is a search for ',name,' in ',flags,'. -#}
{% macro redshift__flag_list(items) -%}
  {%- if not items -%}cast('' as varchar(65535)){%- else -%}
  ltrim({% for item in items %}case when {{ item[1] }} then {{ bloomery.string_literal(',' ~ item[0]) }} else '' end{{ " || " if not loop.last }}{% endfor %}, ',')
  {%- endif -%}
{%- endmacro %}

{% macro redshift__flags_size(expr) -%}
  (case when {{ expr }} = '' then 0 else regexp_count({{ expr }}, ',') + 1 end)
{%- endmacro %}

{% macro redshift__flags_contain(expr, name) -%}
  (strpos(',' || {{ expr }} || ',', {{ bloomery.string_literal(',' ~ name ~ ',') }}) > 0)
{%- endmacro %}

{% macro redshift__flags_text(expr) -%}{{ expr }}{%- endmacro %}

{#- The flags are a string, not a list: the mart counts them with the membership test, not the
    PostgreSQL port's unnest. -#}
{% macro redshift__rule_failures(flagged, rules) -%}
  {{ return(bloomery.default__rule_failures(flagged, rules)) }}
{%- endmacro %}

{% macro redshift__sha256_hex(expr) -%}sha2({{ expr }}, 256){%- endmacro %}

{#- OBJECT builds a SUPER value; JSON_SERIALIZE writes it as text (nulls kept). -#}
{% macro redshift__json_object(columns, prefix, column_prefix) -%}
  json_serialize(object({% for c in columns | sort %}{{ bloomery.string_literal(c) }}, {{ prefix }}{{ adapter.quote(column_prefix ~ c) }}{{ ", " if not loop.last }}{% endfor %}))
{%- endmacro %}

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

{% macro redshift__nfc_normalize(expr) -%}
  {{ exceptions.raise_compiler_error("bloomery: Redshift has no Unicode normalization function, so a `normalize` rule can not run there (bloomery compile --target-dialect redshift refuses it).") }}
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

{#- The Postgres port, except a cast to variant: no jsonb here, the JSON stays text. -#}
{% macro redshift__transform_step(expr, step, safe) -%}
  {%- set source = step.get('from_type') -%}
  {%- if step.op == 'cast' and source and source != 'variant' and step.type.name == 'variant' -%}cast({{ expr }} as varchar(65535))
  {%- else -%}{{ bloomery.postgres__transform_step(expr, step, safe) }}
  {%- endif -%}
{%- endmacro %}

{#- text_to_timestamp: the generic form, not the PostgreSQL port's (no regexp_match arrays, no
    pg_input_is_valid; TRY_CAST judges the rewritten value). REGEXP_SUBSTR returns one group (`e`),
    the first, so only the field read captures; `p` reads the pattern as PCRE, which has `(?:`. -#}
{% macro redshift__text_to_timestamp(expr, safe) -%}
  {{ return(bloomery.default__text_to_timestamp(expr, safe)) }}
{%- endmacro %}

{% macro redshift__iso_timestamp_group(expr, name) -%}
  {%- set p = bloomery.iso_timestamp_pattern(capture=name) -%}
  regexp_substr({{ expr }}, {{ bloomery.string_literal(p.regex) }}, 1, 1, 'pe')
{%- endmacro %}

{% macro redshift__timestamp_minus_minutes(ts, minutes) -%}
  dateadd(minute, -{{ minutes }}, {{ ts }})
{%- endmacro %}

{#- Redshift analyzes a table created by CTAS itself, and the rest in the background. -#}
{% macro redshift__refresh_statistics(relation) -%}{%- endmacro %}

{#- Redshift plans its own way; the PostgreSQL fence is not needed there. -#}
{% macro redshift__evaluate_once() -%}{{ return('') }}{%- endmacro %}
