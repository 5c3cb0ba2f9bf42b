{#- Every postgres override of the package in one place: the engine's differences, and why. -#}

{#- Postgres has no TRY_CAST: guard the cast with the engine's own input parser (16+), and refuse
    the clock words that would coerce the same cell differently on every run. -#}
{% macro postgres__safe_cast(expr, type) -%}
  {%- set t = bloomery.type_name(type) -%}
  case when pg_input_is_valid(({{ expr }})::text, '{{ t }}')
  {%- if type.name in ('date', 'timestamp') %} and not lower(({{ expr }})::text) ~ '^[[:space:]]*(now|today|tomorrow|yesterday)[[:space:]]*$'{% endif %}
  then cast(({{ expr }})::text as {{ t }}) end
{%- endmacro %}

{% macro postgres__type_name(type) -%}
  {%- set names = {'string': 'text', 'int': 'bigint', 'bool': 'boolean', 'date': 'date',
                   'timestamp': 'timestamp', 'variant': 'jsonb'} -%}
  {%- if type.name == 'decimal' -%}numeric({{ type.precision }},{{ type.scale }})
  {%- else -%}{{ names[type.name] }}{%- endif -%}
{%- endmacro %}

{% macro postgres__flag_list(items) -%}
  {%- set empty = 'cast(array[] as text[])' -%}
  {%- if not items -%}{{ empty }}{%- else -%}
  {%- set parts = [] -%}
  {%- for item in items -%}
    {%- do parts.append('case when ' ~ item[1] ~ ' then array[' ~ bloomery.string_literal(item[0]) ~ ']::text[] else ' ~ empty ~ ' end') -%}
  {%- endfor -%}
  {%- set ns = namespace(acc=parts[0]) -%}
  {%- for p in parts[1:] -%}{%- set ns.acc = 'array_cat(' ~ ns.acc ~ ', ' ~ p ~ ')' -%}{%- endfor -%}
  {{ ns.acc }}
  {%- endif -%}
{%- endmacro %}

{% macro postgres__flags_size(expr) -%}coalesce(array_length({{ expr }}, 1), 0){%- endmacro %}

{% macro postgres__flags_contain(expr, name) -%}({{ bloomery.string_literal(name) }} = any({{ expr }})){%- endmacro %}

{% macro postgres__sha256_hex(expr) -%}encode(sha256(convert_to({{ expr }}, 'UTF8')), 'hex'){%- endmacro %}

{% macro postgres__json_object(columns, prefix, column_prefix) -%}
  jsonb_build_object({% for c in columns | sort %}{{ bloomery.string_literal(c) }}, {{ prefix }}{{ adapter.quote(column_prefix ~ c) }}{{ ", " if not loop.last }}{% endfor %})
{%- endmacro %}

{% macro postgres__regex_match(expr, pattern) -%}
  ({{ expr }} ~ {{ bloomery.string_literal(pattern) }})
{%- endmacro %}

{% macro postgres__nfc_normalize(expr) -%}normalize({{ expr }}, NFC){%- endmacro %}

{% macro postgres__json_scalar(expr, path) -%}
  jsonb_path_query_first(({{ expr }})::jsonb, {{ bloomery.string_literal(path) }}) #>> '{}'
{%- endmacro %}

{% macro postgres__regex_extract(expr, pattern, group) -%}
  (regexp_match({{ expr }}, {{ bloomery.string_literal(pattern) }}))[{{ group if group > 0 else 1 }}]
{%- endmacro %}

{% macro postgres__json_path(expr, path) -%}
  jsonb_path_query_first(({{ expr }})::jsonb, {{ bloomery.string_literal(path) }})
{%- endmacro %}

