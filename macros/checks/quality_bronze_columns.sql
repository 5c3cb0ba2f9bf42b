{#- `quality_bronze_columns`: one snapshot per build of the columns of every bronze relation the
    judged entities read, as the engine reports them (name and type), so that each entity's drift
    test can say what changed since the build before (macros/audits/bronze_schema_changes.sql).
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
