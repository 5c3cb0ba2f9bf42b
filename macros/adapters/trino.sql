{#- Every trino override of the package in one place: the engine's differences, and why.
    Trino is rendered and parsed (tests/dialects), not run: no server here. -#}

{#- RE2J; regexp_like is a substring search, hence the mandatory anchors. -#}
{% macro trino__regex_match(expr, pattern) -%}
  regexp_like({{ expr }}, {{ bloomery.string_literal(pattern) }})
{%- endmacro %}

{% macro trino__flags_empty() -%}{{ return('cast(array[] as array(varchar))') }}{%- endmacro %}
{% macro trino__flags_of(name_literal) -%}{{ return('array[' ~ name_literal ~ ']') }}{%- endmacro %}
{% macro trino__flags_concat(left, right) -%}{{ return('concat(' ~ left ~ ', ' ~ right ~ ')') }}{%- endmacro %}

{% macro trino__flags_size(expr) -%}cardinality({{ expr }}){%- endmacro %}

{% macro trino__flags_contain(expr, name) -%}contains({{ expr }}, {{ bloomery.string_literal(name) }}){%- endmacro %}

{% macro trino__flags_text(expr) -%}array_join({{ expr }}, ','){%- endmacro %}

{% macro trino__sha256_hex(expr) -%}lower(to_hex(sha256(to_utf8({{ expr }})))){%- endmacro %}

{#- the SQL-standard form; NULL ON NULL keeps a null value under its key. -#}
{% macro trino__json_object(columns, prefix, column_prefix) -%}
  {%- if not columns -%}'{}'{%- else -%}
  json_format(json_object({% for c in columns | sort %}key {{ bloomery.string_literal(c) }} value {{ prefix }}{{ adapter.quote(column_prefix ~ c) }}{{ ", " if not loop.last }}{% endfor %} null on null))
  {%- endif -%}
{%- endmacro %}

{% macro trino__json_scalar(expr, path) -%}
  json_extract_scalar({{ expr }}, {{ bloomery.string_literal(bloomery._bracket_json_path(path)) }})
{%- endmacro %}

{% macro trino__json_path(expr, path) -%}
  json_extract({{ expr }}, {{ bloomery.string_literal(path) }})
{%- endmacro %}

{#- `$."name"` (a quoted member) as the bracket form `$["name"]`, which every JSONPath reader takes. -#}
{% macro _bracket_json_path(path) -%}
  {%- if path.startswith('$."') and path.endswith('"') -%}{{ return('$[' ~ path[2:] ~ ']') }}{%- endif -%}
  {{ return(path) }}
{%- endmacro %}

{% macro trino__nfc_normalize(expr) -%}normalize({{ expr }}, NFC){%- endmacro %}

{#- strptime directives in Trino's MySQL-style date_parse (%i minutes, %s seconds); try() makes a
    value that does not parse NULL. -#}
{% macro trino__parse_format(expr, format, type, safe) -%}
  {%- set f = format | replace('%M', '%i') | replace('%S', '%s') -%}
  {%- set value = 'date_parse(trim(' ~ expr ~ '), ' ~ bloomery.string_literal(f) ~ ')' -%}
  cast({{ 'try(' ~ value ~ ')' if safe else value }} as {{ bloomery.type_name(type) }})
{%- endmacro %}

{% macro trino__to_utc(expr, zone) -%}
  cast(with_timezone({{ expr }}, {{ bloomery.string_literal(zone) }}) at time zone 'UTC' as timestamp)
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
