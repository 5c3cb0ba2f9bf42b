{#- The clock retention is measured against. -#}
{% macro clock() -%}
  {%- set override = var('bloomery_now', none) -%}
  {%- if override -%}{{ return(modules.datetime.datetime.strptime(override, '%Y-%m-%d %H:%M:%S')) }}{%- endif -%}
  {{ return(run_started_at.replace(tzinfo=none)) }}
{%- endmacro %}
