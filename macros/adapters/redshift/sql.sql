{% macro redshift__sha256_hex(expr) -%}sha2({{ expr }}, 256){%- endmacro %}

{#- OBJECT builds a SUPER value; JSON_SERIALIZE writes it as text (nulls kept). -#}
{% macro redshift__json_object(columns, prefix, column_prefix) -%}
  json_serialize(object({% for c in columns | sort %}{{ bloomery.string_literal(c) }}, {{ prefix }}{{ adapter.quote(column_prefix ~ c) }}{{ ", " if not loop.last }}{% endfor %}))
{%- endmacro %}

{#- Redshift analyzes a table created by CTAS itself, and the rest in the background. -#}
{% macro redshift__refresh_statistics(relation) -%}{%- endmacro %}

{#- Redshift plans its own way; the PostgreSQL fence is not needed there. -#}
{% macro redshift__evaluate_once() -%}{{ return('') }}{%- endmacro %}

{#- FNV-1a chained over the values (the previous hash as the seed); sum(bigint) would overflow. -#}
{% macro redshift__identity_fingerprint(columns) -%}
  {%- set ns = namespace(h=none) -%}
  {%- for c in columns -%}{%- set ns.h = 'fnv_hash(' ~ c ~ (', ' ~ ns.h if ns.h is not none else '') ~ ')' -%}{%- endfor -%}
  sum(cast({{ ns.h }} as decimal(38, 0)))
{%- endmacro %}
