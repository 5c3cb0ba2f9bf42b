{#- `YYYY-MM-DD hh:mm:ss.f`, the missing parts zero: the local (wall-clock) time of the value. -#}
{% macro iso_timestamp_local(g) -%}
  {{ return(g.date ~ " || ' ' || " ~ bloomery.iso_timestamp_default(g.hour, '00') ~ " || ':' || " ~ bloomery.iso_timestamp_default(g.minute, '00') ~ " || ':' || "
            ~ bloomery.iso_timestamp_default(g.second, '00') ~ " || '.' || " ~ bloomery.iso_timestamp_default(g.fraction, '0')) }}
{%- endmacro %}
