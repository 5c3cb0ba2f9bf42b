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
    identity and fail; a single row with a NULL key is not a duplicate.
    `null_key_rows` (a type 2 entity with ingestion metadata: `_source_row_id`, after `_source` on a
    merged one): a NULL key is then its own version chain per source row (its delivery order ranks
    it per source row, and the snapshot versions it so, docs/design.md "Type 2 versions"), so
    the current versions of a NULL key are grouped by their source row too: two source rows of a
    NULL key are two rows, one source row current twice is a duplicate. -#}
{% test bloomery_key_unique(model, key, current_only=false, null_key_rows=none) %}
  {%- set key, current_only = bloomery.argument(key), bloomery.argument(current_only) -%}
  {%- set rows = bloomery.argument(null_key_rows) if null_key_rows is not none else [] -%}
  {%- set q = adapter.quote -%}
  {%- set group = [] -%}
  {%- for k in key %}{% do group.append(q(k)) %}{% endfor -%}
  {%- for c in rows %}{% do group.append('case when ' ~ q(key[0]) ~ ' is null then ' ~ q(c) ~ ' end') %}{% endfor -%}
select {% for k in key %}{{ q(k) }}, {% endfor %}{% for c in rows %}{{ group[key | length + loop.index0] }} as {{ q(c) }}, {% endfor %}count(*) as {{ q("_bloomery_key_rows") }}
from {{ model }}
{%- if current_only %}
where dbt_valid_to is null
{%- endif %}
group by {{ group | join(", ") }}
having count(*) > 1
{% endtest %}
