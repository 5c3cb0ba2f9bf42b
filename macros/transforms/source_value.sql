{#- Bronze text for a path: `$.col` reads the column, `$.col.a.b` a JSON scalar inside it. On
    replay the same path is read back out of the reject row's `raw` object. -#}
{% macro source_value(source_column, json_path, origin='bronze') -%}
  {%- if origin == 'raw' -%}
    {%- set base = bloomery.json_scalar(adapter.quote('raw'), '$.' ~ tojson(source_column)) -%}
  {%- else -%}
    {%- set base = 'cast(' ~ adapter.quote(source_column) ~ ' as ' ~ bloomery.type_name({'name': 'string'}) ~ ')' -%}
  {%- endif -%}
  {%- if json_path -%}{{ return(bloomery.json_scalar(base, json_path)) }}{%- else -%}{{ return(base) }}{%- endif -%}
{%- endmacro %}
