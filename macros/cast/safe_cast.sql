{#- A cast that yields NULL instead of raising: the coercion-failure marker. Call it as
    `bloomery.safe_cast` — dbt has a `safe_cast` of its own. A cast to timestamp is always a cast
    of text and goes through `text_to_timestamp`, so every caller reads offsets the same way. -#}
{% macro safe_cast(expr, type) -%}
  {%- if type.name == 'timestamp' -%}{{ return(bloomery.text_to_timestamp(expr, true)) }}{%- endif -%}
  {{ return(adapter.dispatch('safe_cast', 'bloomery')(expr, type)) }}
{%- endmacro %}

{% macro default__safe_cast(expr, type) -%}{{ bloomery.no_portable_form("safe_cast", "a cast that yields NULL instead of raising (TRY_CAST is no standard SQL)") }}{%- endmacro %}
