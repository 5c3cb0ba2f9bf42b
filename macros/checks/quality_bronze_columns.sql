{#- `quality_bronze_columns`: one snapshot per build of the columns of every bronze relation the
    judged entities read, as the engine reports them (name and type), so that the test
    `<entity>_bronze_schema` can say what changed since the build before (macros/audits/bronze_schema.sql).
    History: appended, never rebuilt (`full_refresh: false`).

    `sources` is a list of {source: <bronze source name>, relation: source('bronze', ...)}. A
    relation the engine does not have yet adds no row (its entity's `__staged` model stops with
    the engine's own "does not exist"). Names and types reach SQL only as literals
    (bloomery.string_literal). -#}
{% macro quality_bronze_columns(sources) -%}
  {{ return(adapter.dispatch('quality_bronze_columns', 'bloomery')(sources)) }}
{%- endmacro %}

{% macro default__quality_bronze_columns(sources) -%}
  {%- set s = bloomery.type_name({'name': 'string'}) -%}
  {%- set rows = [] -%}
  {%- if execute -%}
    {%- for item in sources -%}
      {%- for c in bloomery.bronze_column_types(item.relation) -%}
        {%- do rows.append([item.source, c[0], c[1]]) -%}
      {%- endfor -%}
    {%- endfor -%}
  {%- endif -%}
  {%- set run = "cast(" ~ bloomery.string_literal(invocation_id) ~ " as " ~ s ~ ") as run_id, cast("
      ~ bloomery.string_literal(run_started_at.strftime('%Y-%m-%d %H:%M:%S.%f')) ~ " as "
      ~ bloomery.type_name({'name': 'timestamp'}) ~ ") as run_started_at" -%}
  {%- if not rows %}
select {{ run }}, cast(null as {{ s }}) as source_name, cast(null as {{ s }}) as column_name, cast(null as {{ s }}) as data_type
where 1 = 0
  {%- else -%}
  {%- for r in rows %}
select {{ run }}, cast({{ bloomery.string_literal(r[0]) }} as {{ s }}) as source_name,
  cast({{ bloomery.string_literal(r[1]) }} as {{ s }}) as column_name, cast({{ bloomery.string_literal(r[2] | lower) }} as {{ s }}) as data_type
{{ "union all" if not loop.last }}
  {%- endfor -%}
  {%- endif -%}
{%- endmacro %}

{#- [column name, type name] of an existing relation, in the engine's order; [] when it is not
    there. Read from information_schema with the relation's parts as literals: dbt-postgres's
    get_columns_in_relation writes the relation's name into SQL as a bare string, and a bronze
    relation's name is spec data (see bronze_column_names). -#}
{% macro bronze_column_types(relation) -%}
  {{ return(adapter.dispatch('bronze_column_types', 'bloomery')(relation)) }}
{%- endmacro %}

{% macro default__bronze_column_types(relation) -%}
  {%- set fold = bloomery.bronze_names_fold_case() -%}
  {%- set lit = bloomery.string_literal -%}
  {%- set query -%}
    select column_name, data_type from information_schema.columns
    where {{ 'lower(table_schema) = lower(' ~ lit(relation.schema) ~ ')' if fold else 'table_schema = ' ~ lit(relation.schema) }}
      and {{ 'lower(table_name) = lower(' ~ lit(relation.identifier) ~ ')' if fold else 'table_name = ' ~ lit(relation.identifier) }}
      {%- if relation.database %}
      and {{ 'lower(table_catalog) = lower(' ~ lit(relation.database) ~ ')' if fold else 'table_catalog = ' ~ lit(relation.database) }}
      {%- endif %}
    order by ordinal_position
  {%- endset -%}
  {%- set out = [] -%}
  {%- for row in run_query(query).rows -%}{%- do out.append([row[0], row[1]]) -%}{%- endfor -%}
  {{ return(out) }}
{%- endmacro %}

{#- Spark has no information_schema; dbt-spark's describe quotes the relation with backticks.
    BigQuery reads the schema through its API (free; a query is billed). -#}
{% macro spark__bronze_column_types(relation) -%}
  {{ return(bloomery._adapter_column_types(relation)) }}
{%- endmacro %}

{% macro bigquery__bronze_column_types(relation) -%}
  {{ return(bloomery._adapter_column_types(relation)) }}
{%- endmacro %}

{% macro _adapter_column_types(relation) -%}
  {%- if adapter.get_relation(database=relation.database, schema=relation.schema, identifier=relation.identifier) is none -%}
    {{ return([]) }}
  {%- endif -%}
  {%- set out = [] -%}
  {%- for c in adapter.get_columns_in_relation(relation) -%}{%- do out.append([c.name, c.data_type]) -%}{%- endfor -%}
  {{ return(out) }}
{%- endmacro %}
