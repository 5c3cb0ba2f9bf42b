{% macro redshift__bronze_names_fold_case() -%}{{ return(true) }}{%- endmacro %}
