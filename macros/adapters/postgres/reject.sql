{#- PostgreSQL: `raw` is json (not jsonb: it would reorder the sorted keys), so the members are
    re-aggregated in their original order. -#}
{% macro postgres__json_has_any_key(expr, keys) -%}
  exists (select 1 from json_object_keys({{ expr }}) as m(k) where lower(m.k) in ({{ bloomery._redacted_list(keys) }}))
{%- endmacro %}

{% macro postgres__json_without_keys(expr, keys) -%}
  (select coalesce(json_object_agg(m.k, m.v order by m.n), '{}'::json)
   from json_each({{ expr }}) with ordinality as m(k, v, n)
   where lower(m.k) not in ({{ bloomery._redacted_list(keys) }}))
{%- endmacro %}
