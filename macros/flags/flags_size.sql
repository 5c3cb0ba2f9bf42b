{#- Number of names in a flag column (SQL:2003 `cardinality` by default). -#}
{% macro flags_size(expr) -%}
  {{ return(adapter.dispatch('flags_size', 'bloomery')(expr)) }}
{%- endmacro %}
{% macro default__flags_size(expr) -%}cardinality({{ expr }}){%- endmacro %}
