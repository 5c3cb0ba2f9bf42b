{% macro databricks__purge_expired(retention_hours, relation, fresh) -%}
  {{ return(bloomery.default__purge_expired(retention_hours, relation, fresh)) }}
{%- endmacro %}
