{#- Refuses, before any model runs, an engine version bloomery can not run on. The package runs it
    as an on-run-start hook (dbt_project.yml), so `dbt build` / `run` / `test` stop with a clear
    message instead of failing model by model. Renders no SQL. -#}
{% macro assert_engine_supported() -%}
  {{ return(adapter.dispatch('assert_engine_supported', 'bloomery')()) }}
{%- endmacro %}

{% macro default__assert_engine_supported() -%}{%- endmacro %}

{#- DuckDB 1.3 or newer: the flag list filters with a `lambda x:` (see duckdb__flag_list, macros/adapters/duckdb/flags.sql). -#}
{% macro duckdb__assert_engine_supported() -%}
  {%- if execute -%}
    {%- set version = run_query("select library_version from pragma_version()").rows[0][0] -%}
    {%- set parts = (version | replace('v', '', 1)).split('-')[0].split('.') -%}
    {%- set num = (parts[0] | int) * 10000 + (parts[1] | int) * 100 + (parts[2] | int if parts | length > 2 else 0) -%}
    {%- do bloomery.check_engine_version('duckdb', num, version) -%}
  {%- endif -%}
{%- endmacro %}

{#- The check itself, apart from asking the server, so it can be tried with any version number:
    dbt run-operation bloomery.check_engine_version --args '{engine: postgres, version_num: 150008, version: "15.8"}' -#}
{% macro check_engine_version(engine, version_num, version) -%}
  {%- set needs = {'postgres': {'name': 'PostgreSQL', 'num': 160000, 'min': '16', 'missing': 'pg_input_is_valid()',
                   'for': 'the NULL-on-failure cast behind every quality entity (the coercion marker) and the ingestion-metadata audit',
                   'this': 'server', 'num_name': 'server_version_num'},
                   'duckdb': {'name': 'DuckDB', 'num': 10300, 'min': '1.3', 'missing': 'the `lambda x:` syntax',
                   'for': 'the quality flag list every quality entity builds', 'this': 'database', 'num_name': 'version number'}} -%}
  {%- set n = needs.get(engine) -%}
  {%- if n and (version_num | int) < n.num -%}
    {{ exceptions.raise_compiler_error("bloomery needs " ~ n.name ~ " " ~ n.min ~ " or newer: this " ~ n.this ~ " is " ~ n.name ~ " " ~ version ~ " (" ~ n.num_name ~ " " ~ version_num ~ "), which has no " ~ n.missing ~ ", " ~ n['for'] ~ ". Upgrade the " ~ n.this ~ " to " ~ n.name ~ " " ~ n.min ~ " or newer.") }}
  {%- endif -%}
  {{ return(true) }}
{%- endmacro %}
