{#- The median of `expr` over a group (an aggregate, not a window function): quality_drift's
    baseline median and median absolute deviation. -#}
{% macro median(expr) -%}
  {{ return(adapter.dispatch('median', 'bloomery')(expr)) }}
{%- endmacro %}

{% macro default__median(expr) -%}
  percentile_cont(0.5) within group (order by {{ expr }})
{%- endmacro %}
