{#- Refuses, before any model runs, an engine version bloomery can not run on. The package runs it
    as an on-run-start hook (dbt_project.yml), so `dbt build` / `run` / `test` stop with a clear
    message instead of failing model by model. Renders no SQL. -#}
{% macro assert_engine_supported() -%}
  {{ return(adapter.dispatch('assert_engine_supported', 'bloomery')()) }}
{%- endmacro %}

{% macro default__assert_engine_supported() -%}{%- endmacro %}
