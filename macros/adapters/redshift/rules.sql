{% macro redshift__nfc_normalize(expr) -%}
  {{ exceptions.raise_compiler_error("bloomery: Redshift has no Unicode normalization function, so a `normalize` rule can not run there (bloomery compile --target-dialect redshift refuses it).") }}
{%- endmacro %}
