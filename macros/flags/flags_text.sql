{#- A flag column as one comma-separated text, to compare two of them (replay: did a re-judged
    row's verdict change). -#}
{% macro flags_text(expr) -%}
  {{ return(adapter.dispatch('flags_text', 'bloomery')(expr)) }}
{%- endmacro %}

{% macro default__flags_text(expr) -%}{{ bloomery.no_portable_form("flags_text", "a flag array as one comma-separated text") }}{%- endmacro %}
