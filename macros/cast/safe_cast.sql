{#- A cast that yields NULL instead of raising: the coercion-failure marker. Call it as
    `bloomery.safe_cast` — dbt has a `safe_cast` of its own. -#}
{% macro safe_cast(expr, type) -%}
  {{ return(adapter.dispatch('safe_cast', 'bloomery')(expr, type)) }}
{%- endmacro %}

{% macro default__safe_cast(expr, type) -%}
  try_cast({{ expr }} as {{ bloomery.type_name(type) }})
{%- endmacro %}


{% macro hard_cast(expr, type) -%}
  {{ return(adapter.dispatch('hard_cast', 'bloomery')(expr, type)) }}
{%- endmacro %}

{% macro default__hard_cast(expr, type) -%}
  cast({{ expr }} as {{ bloomery.type_name(type) }})
{%- endmacro %}
