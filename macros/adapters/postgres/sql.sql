{#- sha256 takes bytea and returns bytea. -#}
{% macro postgres__sha256_hex(expr) -%}encode(sha256(convert_to({{ expr }}, 'UTF8')), 'hex'){%- endmacro %}

{#- json, not jsonb: jsonb reorders keys (shorter first), and `raw` / `key_values` keep them sorted. -#}
{% macro postgres__json_object(columns, prefix, column_prefix) -%}
  json_build_object({% for c in columns | sort %}{{ bloomery.string_literal(c) }}, {{ prefix }}{{ adapter.quote(column_prefix ~ c) }}{{ ", " if not loop.last }}{% endfor %})
{%- endmacro %}

{#- A table created or appended to in this run has no statistics until autovacuum comes by, so
    the planner guesses: the conservation audit at 20,000 rows took 18.7 s as a nested loop over
    the entity, 0.03 s once analyzed (docs/performance.md). ANALYZE samples a fixed number of rows,
    so it costs little on a large table. -#}
{% macro postgres__refresh_statistics(relation) -%}analyze {{ relation }}{%- endmacro %}

{#- evaluate_once (macros/sql/evaluate_once.sql): a subquery with an OFFSET is never pulled up. -#}
{% macro postgres__evaluate_once() -%}{{ return('offset 0') }}{%- endmacro %}

{#- a bigint hash of the row of values (PostgreSQL 14+); sum(bigint) is numeric: exact. -#}
{% macro postgres__identity_fingerprint(columns) -%}sum(hash_record_extended(row({{ columns | join(', ') }}), 0)){%- endmacro %}
