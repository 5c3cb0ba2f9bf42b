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
