{#- The product's reserved names, as python/bloomery/vocabulary.py spells them (a unit test holds
    the two equal), so no other macro spells them: the ingestion metadata a loader writes into
    every bronze row, the value an `unknown_member` rule rewrites an orphan's key to (and its
    parent's member row holds), the `_load_id` replay re-delivers type 2 rows under, and the
    namespace of the names bloomery gives what it adds (`internal_prefix`, `placeholder`), which
    no spec name and no bronze column a mapping names may enter.
    Not dispatched: these are the product's names, the same on every engine. -#}
{% macro vocabulary() -%}
  {{ return({'metadata': ['_load_id', '_ingested_at', '_source_row_id'],
             'unknown_member': '__unknown__',
             'replay_load': '__replay__',
             'internal_prefix': '_bloomery',
             'placeholder': '__bloomery_'}) }}
{%- endmacro %}
