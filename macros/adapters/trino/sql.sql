{% macro trino__sha256_hex(expr) -%}lower(to_hex(sha256(to_utf8({{ expr }})))){%- endmacro %}

{#- the SQL-standard form; NULL ON NULL keeps a null value under its key. -#}
{% macro trino__json_object(columns, prefix, column_prefix) -%}
  {%- if not columns -%}'{}'{%- else -%}
  json_format(json_object({% for c in columns | sort %}key {{ bloomery.string_literal(c) }} value {{ prefix }}{{ adapter.quote(column_prefix ~ c) }}{{ ", " if not loop.last }}{% endfor %} null on null))
  {%- endif -%}
{%- endmacro %}

{#- No temporary tables: replay's intermediate tables live in the target schema. -#}
{% macro trino__scratch_relation(identifier) -%}
  {{ return(api.Relation.create(database=target.database, schema=target.schema, identifier=identifier, type='table')) }}
{%- endmacro %}

{% macro trino__create_scratch_table(relation, sql) -%}
  {%- do run_query('drop table if exists ' ~ relation) -%}
  create table {{ relation }} as
  {{ sql }}
{%- endmacro %}

{% macro trino__median(expr) -%}
  approx_percentile({{ expr }}, 0.5)
{%- endmacro %}

{#- checksum() is Trino's order-insensitive aggregate of values: the fingerprint itself. -#}
{% macro trino__identity_fingerprint(columns) -%}checksum(row({{ columns | join(', ') }})){%- endmacro %}
