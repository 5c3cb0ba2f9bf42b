{#- The median of `expr` over a group (an aggregate, not a window function): quality_drift's
    baseline median and median absolute deviation. -#}
{% macro median(expr) -%}
  {{ return(adapter.dispatch('median', 'bloomery')(expr)) }}
{%- endmacro %}

{% macro default__median(expr) -%}
  percentile_cont(0.5) within group (order by {{ expr }})
{%- endmacro %}

{#- percentile_cont is an analytic function only there: the aggregate is approximate -#}
{% macro bigquery__median(expr) -%}
  approx_quantiles({{ expr }}, 2)[offset(1)]
{%- endmacro %}

{% macro trino__median(expr) -%}
  approx_percentile({{ expr }}, 0.5)
{%- endmacro %}
