{#- The offset in minutes east of UTC (0 without one, or with Z): sign and digits read as one
    signed integer each, `+01` and `+30`. -#}
{% macro iso_timestamp_minutes(g) -%}
  {%- set int = bloomery.type_name({'name': 'int'}) -%}
  {%- set sign = bloomery.iso_timestamp_default(g.sign, '+') -%}
  {{ return('(cast(' ~ sign ~ ' || ' ~ bloomery.iso_timestamp_default(g.offset_hour, '00') ~ ' as ' ~ int ~ ') * 60 + cast('
            ~ sign ~ ' || ' ~ bloomery.iso_timestamp_default(g.offset_minute, '00') ~ ' as ' ~ int ~ '))') }}
{%- endmacro %}
