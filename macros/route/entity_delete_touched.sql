{#- `merged`: the entity unions several bronze relations, whose rows are identified by
    (`_source`, `_source_row_id`): two relations may reuse a source row id. -#}
{% macro entity_delete_touched(key, dedupe, staged, merged=false) -%}
  {{ return(adapter.dispatch('entity_delete_touched', 'bloomery')(key, dedupe, staged, merged)) }}
{%- endmacro %}

{#- With dedupe, a row the batch re-judged has its key in the batch, unless the key is NULL: such a
    row is its own dedupe group, and it is re-judged only when its delivery is in the batch (a
    source row the batch reached through one of its keys may hold a NULL-key delivery the batch
    did not read). Testing every row with a key by its delivery as well would only repeat the key
    test, at the cost of a second probe of the whole entity (at 8.7M rows: 0.36 s against 0.11 s).
    Without dedupe a row is its own group, and the batch holds every delivery of its source rows. -#}
{% macro default__entity_delete_touched(key, dedupe, staged, merged=false) -%}
  {%- if not is_incremental() -%}select 1{%- else -%}
  {%- set q = adapter.quote -%}
  {%- set delivered = [] -%}
  {%- for k in key if k.startswith('_bloomery_delivered__') %}{% do delivered.append(k) %}{% endfor -%}
  {%- if execute and delivered -%}
    {#- an entity published before its key carried the delivered value (identity_key.sql) has no
        such column yet: matching on the rewritten key instead would delete other orphans' rows -#}
    {%- set have = adapter.get_columns_in_relation(this) | map(attribute='name') | map('lower') | list -%}
    {#- no columns at all: a relation the adapter cannot describe (a render without a warehouse),
        not an entity that lacks the column -#}
    {%- for k in delivered if have and k | lower not in have -%}
      {%- do exceptions.raise_compiler_error("bloomery: " ~ this ~ " has no column " ~ k ~ ", which identifies its rows since "
            ~ "its key carries the delivered value of a key column unknown_member rewrites (docs/quality-rules.md, "
            ~ "The delivered key); rebuild it once: dbt build --full-refresh -s " ~ this.identifier) -%}
    {%- endfor -%}
  {%- endif -%}
  {%- set same_source -%}
  {%- if merged %} and r.{{ q('_bloomery_source') }} = {{ this }}.{{ q('_source') }}{% endif -%}
  {%- endset -%}
delete from {{ this }}
where {% if dedupe -%}
  exists (
     select 1 from {{ staged }} as s
     where {% for k in key %}s.{{ q(k) }} = {{ this }}.{{ q(k) }}{{ " and " if not loop.last }}{% endfor %}
   )
   or (({% for k in key %}{{ q(k) }} is null{{ " or " if not loop.last }}{% endfor %})
       and exists (select 1 from {{ staged }} as r
                   where r.{{ q('_source_row_id') }} = {{ this }}.{{ q('_source_row_id') }}
                     and r.{{ q('_load_id') }} = {{ this }}.{{ q('_load_id') }}
                     and r.{{ q('_ingested_at') }} = {{ this }}.{{ q('_ingested_at') }}{{ same_source }}))
  {%- elif merged -%}
  exists (select 1 from {{ staged }} as r
          where r.{{ q('_source_row_id') }} = {{ this }}.{{ q('_source_row_id') }}{{ same_source }})
  {%- else -%}
  {{ q('_source_row_id') }} in (select {{ q('_source_row_id') }} from {{ staged }})
  {%- endif %}
  {%- endif -%}
{%- endmacro %}
