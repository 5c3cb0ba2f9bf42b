{#- DuckDB 1.3 or newer: the flag list filters with a `lambda x:` (see duckdb__flag_list, macros/adapters/duckdb/flags.sql). -#}
{% macro duckdb__assert_engine_supported() -%}
  {%- if execute -%}
    {%- set version = run_query("select library_version from pragma_version()").rows[0][0] -%}
    {%- set parts = (version | replace('v', '', 1)).split('-')[0].split('.') -%}
    {%- set num = (parts[0] | int) * 10000 + (parts[1] | int) * 100 + (parts[2] | int if parts | length > 2 else 0) -%}
    {%- do bloomery.check_engine_version('duckdb', num, version) -%}
  {%- endif -%}
{%- endmacro %}
