{#- delete+insert on reject_id: a merge on it where every column takes the new row (the select
    already carries first_seen and last_evaluated_at over). -#}
{% macro bigquery__reject_rows(entity, staged, sources) -%}
  {%- do config(incremental_strategy='merge', unique_key='reject_id') -%}
  {{ return(bloomery.default__reject_rows(entity, staged, sources)) }}
{%- endmacro %}

{#- BigQuery: `raw` is JSON text (to_json_string); rebuilt from its kept keys and values. -#}
{% macro bigquery__json_has_any_key(expr, keys) -%}
  exists (select 1 from unnest(json_keys(parse_json({{ expr }}), 1)) as k where lower(k) in ({{ bloomery._redacted_list(keys) }}))
{%- endmacro %}

{% macro bigquery__json_without_keys(expr, keys) -%}
  (select to_json_string(json_object(array_agg(k order by o), array_agg(parse_json({{ expr }})[k] order by o)))
   from unnest(json_keys(parse_json({{ expr }}), 1)) as k with offset as o
   where lower(k) not in ({{ bloomery._redacted_list(keys) }}))
{%- endmacro %}
