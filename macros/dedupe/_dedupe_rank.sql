{#- A row's rank within its key under dedupe's window: replay contests a key with it. -#}
{% macro _dedupe_rank(keys, order, values, source=none) -%}
  row_number() {{ bloomery._dedupe_window(keys, order, values, source) }}
{%- endmacro %}
