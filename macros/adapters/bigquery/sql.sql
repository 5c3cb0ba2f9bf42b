{#- BigQuery reads backslash as an escape inside string literals. -#}
{% macro bigquery__string_literal(value) -%}
  '{{ (value | string) | replace("\\", "\\\\") | replace("'", "\\'") | replace("\n", "\\n") }}'
{%- endmacro %}

{% macro bigquery__sha256_hex(expr) -%}to_hex(sha256({{ expr }})){%- endmacro %}

{% macro bigquery__json_object(columns, prefix, column_prefix) -%}
  {%- if not columns -%}'{}'{%- else -%}
  to_json_string(json_object({% for c in columns | sort %}{{ bloomery.string_literal(c) }}, {{ prefix }}{{ adapter.quote(column_prefix ~ c) }}{{ ", " if not loop.last }}{% endfor %}))
  {%- endif -%}
{%- endmacro %}

{#- Temporary tables need a session: replay's intermediate tables live in the target dataset. -#}
{% macro bigquery__scratch_relation(identifier) -%}
  {{ return(api.Relation.create(database=target.database, schema=target.schema, identifier=identifier, type='table')) }}
{%- endmacro %}

{% macro bigquery__create_scratch_table(relation, sql) -%}
  create or replace table {{ relation }} as
  {{ sql }}
{%- endmacro %}

{#- Each job commits by itself. -#}
{% macro bigquery__end_transaction(name) -%}{%- endmacro %}

{#- percentile_cont is an analytic function only there: the aggregate is approximate -#}
{% macro bigquery__median(expr) -%}
  approx_quantiles({{ expr }}, 2)[offset(1)]
{%- endmacro %}

{#- farm_fingerprint of the values' literal text (%T: typed, NULL distinct from 'NULL'), summed
    as NUMERIC: an INT64 sum would raise on overflow. -#}
{% macro bigquery__identity_fingerprint(columns) -%}sum(cast(farm_fingerprint(format('%T', ({{ columns | join(', ') }}))) as numeric)){%- endmacro %}
