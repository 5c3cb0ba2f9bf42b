{#- Redshift reports itself as PostgreSQL 8.0: the PostgreSQL version check does not apply. -#}
{% macro redshift__assert_engine_supported() -%}{%- endmacro %}
