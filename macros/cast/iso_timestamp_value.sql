{#- The UTC timestamp from the fields `g` (SQL text each), NULL unless `matched` and the engine's
    cast reads the rewritten value. -#}
{% macro iso_timestamp_value(g, matched) -%}
  {#- the engine's own NULL-on-failure cast (not `bloomery.safe_cast`, which would come back here) -#}
  {%- set ts = adapter.dispatch('safe_cast', 'bloomery')(bloomery.iso_timestamp_local(g), {'name': 'timestamp'}) | trim -%}
  case when {{ matched }} then {{ bloomery.timestamp_minus_minutes(ts, bloomery.iso_timestamp_minutes(g)) }} end
{%- endmacro %}
