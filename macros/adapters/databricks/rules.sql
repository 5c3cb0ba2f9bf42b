{#- reflect() is not open on SQL warehouses and Unity Catalog shared clusters. -#}
{% macro databricks__nfc_normalize(expr) -%}
  {{ exceptions.raise_compiler_error("bloomery: Databricks SQL gives no Unicode normalization (reflect() is closed there), so a `normalize` rule can not run (bloomery compile --target-dialect databricks refuses it).") }}
{%- endmacro %}
