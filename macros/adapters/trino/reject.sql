{#- Trino: `raw` is JSON text (json_format); a map of JSON values keeps each member's type. -#}
{% macro trino__json_has_any_key(expr, keys) -%}
  any_match(map_keys(cast(json_parse({{ expr }}) as map(varchar, json))), k -> lower(k) in ({{ bloomery._redacted_list(keys) }}))
{%- endmacro %}

{% macro trino__json_without_keys(expr, keys) -%}
  json_format(cast(map_filter(cast(json_parse({{ expr }}) as map(varchar, json)), (k, v) -> lower(k) not in ({{ bloomery._redacted_list(keys) }})) as json))
{%- endmacro %}
