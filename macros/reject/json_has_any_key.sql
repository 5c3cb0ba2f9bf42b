{#- True when the JSON object `expr` has a top-level key in `keys` (any letter case). -#}
{% macro json_has_any_key(expr, keys) -%}
  {{ return(adapter.dispatch('json_has_any_key', 'bloomery')(expr, keys)) }}
{%- endmacro %}

{#- DuckDB: `raw` is JSON. json_each walks the members in order (`id`). -#}
{% macro default__json_has_any_key(expr, keys) -%}
  list_has_any(list_transform(json_keys({{ expr }}), lambda k: lower(k)), [{{ bloomery._redacted_list(keys) }}])
{%- endmacro %}
