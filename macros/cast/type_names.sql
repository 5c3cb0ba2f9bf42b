{#- The engine's word for each spec type (a decimal's precision and scale are added to its word). -#}
{% macro type_names() -%}
  {{ return(adapter.dispatch('type_names', 'bloomery')()) }}
{%- endmacro %}

{% macro default__type_names() -%}
  {{ return({'string': 'varchar', 'int': 'bigint', 'bool': 'boolean', 'date': 'date',
             'timestamp': 'timestamp', 'variant': 'json', 'decimal': 'decimal'}) }}
{%- endmacro %}
