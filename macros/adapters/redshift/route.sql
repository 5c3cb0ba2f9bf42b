{#- Redshift would inherit PostgreSQL's in-place publishing (macros/adapters/postgres/route.sql),
    which is verified on PostgreSQL only: Redshift is rendered, not run, here, and some of its
    ALTER TABLE forms refuse a transaction block. It keeps the copy every engine shares. -#}
{% macro redshift__publishes_staged(entity) -%}
  {{ return(false) }}
{%- endmacro %}
