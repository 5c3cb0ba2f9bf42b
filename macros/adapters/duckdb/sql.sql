{#- DuckDB's sha256 already returns lowercase hex. -#}
{% macro duckdb__sha256_hex(expr) -%}sha256({{ expr }}){%- endmacro %}

{#- DuckDB's json_object takes key, value pairs (no KEY ... VALUE) and keeps a null value. -#}
{% macro duckdb__json_object(columns, prefix, column_prefix) -%}
  json_object({% for c in columns | sort %}{{ bloomery.string_literal(c) }}, {{ prefix }}{{ adapter.quote(column_prefix ~ c) }}{{ ", " if not loop.last }}{% endfor %})
{%- endmacro %}

{#- hash() takes several values and returns a UBIGINT; their sum is a HUGEINT: exact. -#}
{% macro duckdb__identity_fingerprint(columns) -%}sum(hash({{ columns | join(', ') }})){%- endmacro %}

{#- DuckDB inlines a CTE at every read unless it is `materialized` (sql/cte_materialized.sql). -#}
{% macro duckdb__cte_materialized() -%}materialized{%- endmacro %}
