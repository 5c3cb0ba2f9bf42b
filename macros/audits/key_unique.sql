{#- Blocking audit on `<entity>` (its snapshot for a type 2 entity) when the entity declares no
    `dedupe:`. Dedupe is what keeps one row per key; without it two bronze rows of one key are
    both kept and the entity publishes the key twice, which every join on the key then doubles.
    Returns one row per key held more than once, with how many rows hold it (`_bloomery_key_rows`:
    a name no spec column can take by accident).
    It reads the entity as published (like conservation): an incremental entity's rows from
    earlier runs count, and a type 2 entity is judged on its current versions only, since its
    history holds one key many times by design.
    NULL keys: a `group by` puts rows whose key columns are all equal, NULLs included, in one
    group (IS NOT DISTINCT FROM), so two rows with a NULL key are two rows claiming one unknown
    identity and fail; a single row with a NULL key is not a duplicate. -#}
{% test bloomery_key_unique(model, key, current_only=false) %}
  {%- set key, current_only = bloomery.argument(key), bloomery.argument(current_only) -%}
  {%- set q = adapter.quote -%}
select {% for k in key %}{{ q(k) }}, {% endfor %}count(*) as {{ q("_bloomery_key_rows") }}
from {{ model }}
{%- if current_only %}
where dbt_valid_to is null
{%- endif %}
group by {% for k in key %}{{ q(k) }}{{ ", " if not loop.last }}{% endfor %}
having count(*) > 1
{% endtest %}
