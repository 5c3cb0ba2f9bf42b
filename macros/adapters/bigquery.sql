{#- Every bigquery override of the package in one place: the engine's differences, and why.
    BigQuery is rendered and parsed (tests/dialects), not run: no server here. -#}

{% macro bigquery__type_names() -%}
  {{ return({'string': 'string', 'int': 'int64', 'bool': 'bool', 'date': 'date',
             'timestamp': 'timestamp', 'variant': 'json', 'decimal': 'numeric'}) }}
{%- endmacro %}

{#- NUMERIC(P, S) holds S <= 9 and P - S <= 29; wider decimals are BIGNUMERIC(P, S). -#}
{% macro bigquery__type_name(type) -%}
  {%- if type.name == 'decimal' -%}
    {%- set p, s = type.precision | int, type.scale | int -%}
    {{ 'numeric' if (s <= 9 and p - s <= 29) else 'bignumeric' }}({{ p }}, {{ s }})
  {%- else -%}{{ bloomery.default__type_name(type) }}{%- endif -%}
{%- endmacro %}

{% macro bigquery__safe_cast(expr, type) -%}
  safe_cast({{ expr }} as {{ bloomery.type_name(type) }})
{%- endmacro %}

{#- TIMESTAMP_TRUNC takes the part last and unquoted, and a timestamp: a date casts to its midnight. -#}
{#- the unit is a keyword here, not a string: taken from a fixed map, so an unknown bucket fails to render -#}
{% macro bigquery__time_bucket(expr, bucket) -%}timestamp_trunc(cast({{ expr }} as timestamp), {{ {'day': 'DAY', 'month': 'MONTH', 'year': 'YEAR', 'hour': 'HOUR'}[bucket] }}){%- endmacro %}

{#- BigQuery reads backslash as an escape inside string literals. -#}
{% macro bigquery__string_literal(value) -%}
  '{{ (value | string) | replace("\\", "\\\\") | replace("'", "\\'") | replace("\n", "\\n") }}'
{%- endmacro %}

{#- RE2; REGEXP_CONTAINS is a substring search, hence the mandatory anchors. -#}
{% macro bigquery__regex_match(expr, pattern) -%}
  regexp_contains({{ expr }}, {{ bloomery.string_literal(pattern) }})
{%- endmacro %}

{% macro bigquery__flags_empty() -%}{{ return('cast([] as array<string>)') }}{%- endmacro %}
{% macro bigquery__flags_of(name_literal) -%}{{ return('[' ~ name_literal ~ ']') }}{%- endmacro %}
{% macro bigquery__flags_concat(left, right) -%}{{ return('array_concat(' ~ left ~ ', ' ~ right ~ ')') }}{%- endmacro %}

{% macro bigquery__flags_size(expr) -%}array_length({{ expr }}){%- endmacro %}

{% macro bigquery__flags_contain(expr, name) -%}({{ bloomery.string_literal(name) }} in unnest({{ expr }})){%- endmacro %}

{% macro bigquery__flags_text(expr) -%}array_to_string({{ expr }}, ','){%- endmacro %}

{% macro bigquery__sha256_hex(expr) -%}to_hex(sha256({{ expr }})){%- endmacro %}

{% macro bigquery__json_object(columns, prefix, column_prefix) -%}
  {%- if not columns -%}'{}'{%- else -%}
  to_json_string(json_object({% for c in columns | sort %}{{ bloomery.string_literal(c) }}, {{ prefix }}{{ adapter.quote(column_prefix ~ c) }}{{ ", " if not loop.last }}{% endfor %}))
  {%- endif -%}
{%- endmacro %}

{#- JSON_VALUE reads `$."quoted"` members as they are. -#}
{% macro bigquery__json_scalar(expr, path) -%}
  json_value({{ expr }}, {{ bloomery.string_literal(path) }})
{%- endmacro %}

{% macro bigquery__json_path(expr, path) -%}
  json_query({{ expr }}, {{ bloomery.string_literal(path) }})
{%- endmacro %}

{% macro bigquery__nfc_normalize(expr) -%}normalize({{ expr }}, NFC){%- endmacro %}

{% macro bigquery__chr(point) -%}code_points_to_string([{{ point }}]){%- endmacro %}

{#- No SPLIT_PART: SPLIT and a safe offset; past the last part is '' as on DuckDB. -#}
{% macro bigquery__split_part(expr, delimiter, index) -%}
  case when {{ expr }} is not null then coalesce(split({{ expr }}, {{ bloomery.string_literal(delimiter) }})[safe_ordinal({{ index }})], '') end
{%- endmacro %}

{#- REGEXP_EXTRACT returns the pattern's one capturing group, or the whole match without one;
    NULL without a match. -#}
{% macro bigquery__regex_extract(expr, pattern, group) -%}
  regexp_extract({{ expr }}, {{ bloomery.string_literal(pattern) }})
{%- endmacro %}

{#- strptime directives are BigQuery's own format elements. -#}
{% macro bigquery__parse_format(expr, format, type, safe) -%}
  cast({{ 'safe.' if safe }}parse_timestamp({{ bloomery.string_literal(format) }}, trim({{ expr }})) as {{ bloomery.type_name(type) }})
{%- endmacro %}

{#- wall-clock time in `zone` to a (UTC) timestamp -#}
{% macro bigquery__to_utc(expr, zone) -%}
  timestamp(datetime({{ expr }}), {{ bloomery.string_literal(zone) }})
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

{#- dbt-bigquery's incremental strategies are merge, insert_overwrite and microbatch: no append, no
    delete+insert. Each write keeps its meaning as a MERGE, chosen here at parse time.
    The entity: its pre-hook has already deleted every row the batch re-judges, so a merge on
    `_source_row_id` finds no match and only inserts, as append would (a merged entity's rows are
    identified with their `_source` too: two relations may reuse a source row id). -#}
{% macro bigquery__entity_rows(entity, staged) -%}
  {%- do config(incremental_strategy='merge', unique_key=['_source', '_source_row_id'] if entity.mappings | length > 1 else '_source_row_id') -%}
  {{ return(bloomery.default__entity_rows(entity, staged)) }}
{%- endmacro %}

{#- The ledger: its pre-hook has forgotten the re-judged source rows, so a merge on the delivery's
    identity only inserts, as append would. -#}
{% macro bigquery__ledger_rows(staged) -%}
  {%- do config(incremental_strategy='merge', unique_key=['source_relation', '_source_row_id', '_load_id', '_ingested_at']) -%}
  {{ return(bloomery.default__ledger_rows(staged)) }}
{%- endmacro %}

{#- delete+insert on reject_id: a merge on it where every column takes the new row (the select
    already carries first_seen and last_evaluated_at over). -#}
{% macro bigquery__reject_rows(entity, staged, sources) -%}
  {%- do config(incremental_strategy='merge', unique_key='reject_id') -%}
  {{ return(bloomery.default__reject_rows(entity, staged, sources)) }}
{%- endmacro %}

{#- The bronze column snapshots: a new run_id every build, so the merge only inserts. -#}
{% macro bigquery__quality_bronze_columns(sources) -%}
  {%- do config(incremental_strategy='merge', unique_key=['run_id', 'source_name', 'column_name']) -%}
  {{ return(bloomery.default__quality_bronze_columns(sources)) }}
{%- endmacro %}

{% macro bigquery__mart_data_quality(entities, reconcile) -%}
  {%- do config(incremental_strategy='merge', unique_key=['run_id', 'entity', 'mapping', 'rule']) -%}
  {{ return(bloomery.default__mart_data_quality(entities, reconcile)) }}
{%- endmacro %}

{#- text_to_timestamp: REGEXP_EXTRACT takes a pattern with at most one capturing group, so each
    field is read with a pattern in which only that field captures. -#}
{% macro bigquery__iso_timestamp_group(expr, name) -%}
  {%- set p = bloomery.iso_timestamp_pattern(capture=name) -%}
  regexp_extract({{ expr }}, {{ bloomery.string_literal(p.regex) }})
{%- endmacro %}

{% macro bigquery__timestamp_minus_minutes(ts, minutes) -%}
  timestamp_sub({{ ts }}, interval {{ minutes }} minute)
{%- endmacro %}
