{#- The flags are a string, not a list: the mart counts them with the membership test, not the
    PostgreSQL port's unnest. -#}
{% macro redshift__rule_failures(flagged, rules) -%}
  {{ return(bloomery.default__rule_failures(flagged, rules)) }}
{%- endmacro %}
