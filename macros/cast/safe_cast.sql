{#- A cast that yields NULL instead of raising: the coercion-failure marker. Call it as
    `bloomery.safe_cast` — dbt has a `safe_cast` of its own. -#}
{% macro safe_cast(expr, type) -%}
  {{ return(adapter.dispatch('safe_cast', 'bloomery')(expr, type)) }}
{%- endmacro %}

{% macro default__safe_cast(expr, type) -%}
  try_cast({{ expr }} as {{ bloomery.type_name(type) }})
{%- endmacro %}

{#- Postgres has no TRY_CAST: guard the cast with the engine's own input parser (16+), and refuse
    the clock words that would coerce the same cell differently on every run. -#}
{% macro postgres__safe_cast(expr, type) -%}
  {%- set t = bloomery.type_name(type) -%}
  case when pg_input_is_valid(({{ expr }})::text, '{{ t }}')
  {%- if type.name in ('date', 'timestamp') %} and not lower(({{ expr }})::text) ~ '^[[:space:]]*(now|today|tomorrow|yesterday)[[:space:]]*$'{% endif %}
  then cast(({{ expr }})::text as {{ t }}) end
{%- endmacro %}

{% macro hard_cast(expr, type) -%}
  cast({{ expr }} as {{ bloomery.type_name(type) }})
{%- endmacro %}
