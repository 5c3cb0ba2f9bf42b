{#- Run by the entity's delete (`entity_delete_touched`) before it deletes: a row it removes whose
    delivery this run does not judge again is a kept delivery bronze no longer holds (its load was
    deleted, then a later load re-delivered the key or the source row). No run judges it again, so
    its verdict `keep`, which the ledger view reads from the entity row, goes to the rest table
    before the row goes (as a ledger table kept it). A delivery the rest table already holds (an
    entity row admitted by replay, or a retried run) keeps the verdict recorded there. -#}
{% macro ledger_rest_keep_removed(key, dedupe, staged, merged=false, source=none) -%}
  {%- set q = adapter.quote -%}
  {%- set rest = bloomery.ledger_rest(this) -%}
  {%- set s = bloomery.type_name({'name': 'string'}) -%}
  {%- set delivery = ['_source_row_id', '_load_id', '_ingested_at'] -%}
  {%- set src -%}{% if source is none %}e.{{ q('_source') }}{% else %}{{ bloomery.string_literal(source) }}{% endif %}{%- endset -%}
insert into {{ rest }} ({% for c in bloomery._ledger_columns() %}{{ q(c) }}{{ ", " if not loop.last }}{% endfor %})
select {{ src }}, e.{{ q('_source_row_id') }}, e.{{ q('_load_id') }}, e.{{ q('_ingested_at') }},
  cast(null as {{ s }}), 'keep', null, cast(null as {{ s }})
from {{ this }} as e
where e.{{ q('_source_row_id') }} is not null
  and {{ bloomery._entity_touched(key, dedupe, staged, merged, 'e') }}
  and not exists (
    select 1 from {{ staged }} as b
    where {% for c in delivery %}b.{{ q(c) }} = e.{{ q(c) }} and {% endfor %}b.{{ q('_bloomery_source') }} = {{ src }})
  and not exists (
    select 1 from {{ rest }} as d
    where {% for c in delivery %}d.{{ q(c) }} = e.{{ q(c) }} and {% endfor %}d.{{ q('source_relation') }} = {{ src }})
{%- endmacro %}
