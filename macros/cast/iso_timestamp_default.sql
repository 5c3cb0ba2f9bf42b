{% macro iso_timestamp_default(expr, default) -%}
  {{ return("coalesce(nullif(" ~ expr ~ ", ''), '" ~ default ~ "')") }}
{%- endmacro %}
