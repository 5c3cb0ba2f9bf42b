{#- Snowflake reads backslash as an escape inside string literals. -#}
{% macro snowflake__string_literal(value) -%}
  '{{ (value | string) | replace("\\", "\\\\") | replace("'", "\\'") }}'
{%- endmacro %}

{% macro snowflake__sha256_hex(expr) -%}sha2({{ expr }}, 256){%- endmacro %}

{#- object_construct drops null values; the _keep_null form keeps the key. -#}
{% macro snowflake__json_object(columns, prefix, column_prefix) -%}
  to_json(object_construct_keep_null({% for c in columns | sort %}{{ bloomery.string_literal(c) }}, {{ prefix }}{{ adapter.quote(column_prefix ~ c) }}{{ ", " if not loop.last }}{% endfor %}))
{%- endmacro %}

{#- hash() takes several values and returns a signed 64-bit NUMBER; its sum is NUMBER(38, 0): exact. -#}
{% macro snowflake__identity_fingerprint(columns) -%}sum(hash({{ columns | join(', ') }})){%- endmacro %}
