{% macro nfc_normalize(expr) -%}
  {{ return(adapter.dispatch('nfc_normalize', 'bloomery')(expr)) }}
{%- endmacro %}
{% macro default__nfc_normalize(expr) -%}nfc_normalize({{ expr }}){%- endmacro %}
