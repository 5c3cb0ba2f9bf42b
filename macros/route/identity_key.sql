{#- The columns that identify an entity row: its key, except that a key column an `unknown_member`
    rule rewrites is identified by the value the source delivered (`_bloomery_delivered__<column>`,
    which the staged table and the entity carry beside it). Two orphan lines of different orders
    both publish `('__unknown__', 1)`; they are two rows, and dedupe, the incremental delete,
    key_unique, source_collision and replay's merge tell them apart by this. The compiler decides
    it (resolve/ir.py, Entity.identity); `entity` is the resolved entity, or replay's copy of it. -#}
{% macro identity_key(entity) -%}
  {{ return(entity.get('identity') or entity.key) }}
{%- endmacro %}
