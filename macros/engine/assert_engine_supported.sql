{#- Refuses, before any model runs, an engine version bloomery can not run on. The package runs it
    as an on-run-start hook (dbt_project.yml), so `dbt build` / `run` / `test` stop with a clear
    message instead of failing model by model. Renders no SQL. -#}
{% macro assert_engine_supported() -%}
  {{ return(adapter.dispatch('assert_engine_supported', 'bloomery')()) }}
{%- endmacro %}

{% macro default__assert_engine_supported() -%}{%- endmacro %}

{#- The check itself, apart from asking the server, so it can be tried with any version number:
    dbt run-operation bloomery.check_engine_version --args '{engine: postgres, version_num: 150008, version: "15.8"}' -#}
{% macro check_engine_version(engine, version_num, version) -%}
  {%- set needs = {'postgres': {'name': 'PostgreSQL', 'num': 160000, 'min': '16', 'missing': 'pg_input_is_valid()',
                   'for': 'the NULL-on-failure cast behind every quality entity (the coercion marker) and the ingestion-metadata audit'}} -%}
  {%- set n = needs.get(engine) -%}
  {%- if n and (version_num | int) < n.num -%}
    {{ exceptions.raise_compiler_error("bloomery needs " ~ n.name ~ " " ~ n.min ~ " or newer: this server is " ~ n.name ~ " " ~ version ~ " (server_version_num " ~ version_num ~ "), which has no " ~ n.missing ~ ", " ~ n['for'] ~ ". Upgrade the server to " ~ n.name ~ " " ~ n.min ~ " or newer.") }}
  {%- endif -%}
  {{ return(true) }}
{%- endmacro %}
