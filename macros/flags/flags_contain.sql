{#- Whether a flag column holds the rule `name` (a quantified comparison by default). -#}
{% macro flags_contain(expr, name) -%}
  {{ return(adapter.dispatch('flags_contain', 'bloomery')(expr, name)) }}
{%- endmacro %}

{% macro default__flags_contain(expr, name) -%}{{ bloomery.no_portable_form("flags_contain", "testing that a flag array holds a name (`= ANY` over an array is no standard SQL)") }}{%- endmacro %}
