{#- The captured fields, in the order of the pattern's capturing groups. -#}
{% macro iso_timestamp_fields() -%}
  {{ return(['date', 'hour', 'minute', 'second', 'fraction', 'sign', 'offset_hour', 'offset_minute']) }}
{%- endmacro %}
