{#- Produce or raise (entities outside the quality system); timestamps as in safe_cast. -#}
{% macro hard_cast(expr, type) -%}
  {%- if type.name == 'timestamp' -%}{{ return(bloomery.text_to_timestamp(expr, false)) }}{%- endif -%}
  {{ return(adapter.dispatch('hard_cast', 'bloomery')(expr, type)) }}
{%- endmacro %}

{% macro default__hard_cast(expr, type) -%}
  cast({{ expr }} as {{ bloomery.type_name(type) }})
{%- endmacro %}
