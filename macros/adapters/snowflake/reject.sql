{#- Snowflake: `raw` is JSON text (to_json); object_pick keeps the listed keys. -#}
{% macro snowflake__json_has_any_key(expr, keys) -%}
  array_size(filter(object_keys(parse_json({{ expr }})), k -> lower(k::string) in ({{ bloomery._redacted_list(keys) }}))) > 0
{%- endmacro %}

{% macro snowflake__json_without_keys(expr, keys) -%}
  to_json(object_pick(parse_json({{ expr }}), filter(object_keys(parse_json({{ expr }})), k -> lower(k::string) not in ({{ bloomery._redacted_list(keys) }}))))
{%- endmacro %}
