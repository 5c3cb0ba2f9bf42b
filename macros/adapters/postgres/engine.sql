{#- Refuse a server older than 16 before any model runs (an on-run-start hook of the package):
    without pg_input_is_valid every quality entity would fail with "function does not exist". -#}
{% macro postgres__assert_engine_supported() -%}
  {%- if execute -%}
    {%- set row = run_query("select current_setting('server_version_num')::int, current_setting('server_version')").rows[0] -%}
    {%- do bloomery.check_engine_version('postgres', row[0], row[1]) -%}
  {%- endif -%}
{%- endmacro %}
