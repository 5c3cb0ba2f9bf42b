{#- DuckDB: `raw` is JSON. json_each walks the members in order (`id`). -#}
{% macro duckdb__json_has_any_key(expr, keys) -%}
  list_has_any(list_transform(json_keys({{ expr }}), lambda k: lower(k)), [{{ bloomery._redacted_list(keys) }}])
{%- endmacro %}

{% macro duckdb__json_without_keys(expr, keys) -%}
  (select coalesce(json_group_object(m.key, m.value), '{}')
   from (select * from json_each({{ expr }}) order by id) as m
   where lower(m.key) not in ({{ bloomery._redacted_list(keys) }}))
{%- endmacro %}
