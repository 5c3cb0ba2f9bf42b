{#- [key column, column of its delivered value] for each key column an `unknown_member` rule rewrites. -#}
{% macro delivered_keys(entity) -%}
  {%- set out = [] -%}
  {%- for k in entity.key -%}
    {%- set i = bloomery.identity_key(entity)[loop.index0] -%}
    {%- if i != k %}{% do out.append([k, i]) %}{% endif -%}
  {%- endfor -%}
  {{ return(out) }}
{%- endmacro %}
