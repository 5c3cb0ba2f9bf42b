{#- Post-hook of `<entity>__reject`: the entity's `quarantine.redact` applied to the rows already in
    the table. A row is written with the redaction in force when it was diverted, so widening
    `redact` would otherwise leave the newly redacted columns in every earlier reject's `raw` until
    a full refresh, which the reject table refuses (`full_refresh: false`). This removes them on
    the next ordinary build instead.

    `redact` is the IR's list: top-level bronze column names (a redacted JSONPath covers its whole
    top-level column, see the compiler), matched case-insensitively as the compiler matches them
    (`Notes` and `notes` are one column on DuckDB and for unquoted names everywhere). Only rows
    whose `raw` still holds such a key are rewritten, so once they are clean a build costs one scan
    of the key lists and writes nothing. `key_values` needs nothing: it holds key columns, which are
    read by the mapping and therefore can never be redacted (RedactionConflict).

    Spark's parquet reject table has no UPDATE: its rebuild (spark__reject_rows) applies the same
    expression to the earlier rows it copies, and the post-hook renders nothing. -#}
{% macro redact_rejects(redact, relation=none) -%}
  {{ return(adapter.dispatch('redact_rejects', 'bloomery')(redact, relation)) }}
{%- endmacro %}

{% macro default__redact_rejects(redact, relation) -%}
  {%- if redact -%}
  {%- set target_relation = relation if relation is not none else this -%}
  {%- set raw = adapter.quote('raw') -%}
update {{ target_relation }}
set {{ raw }} = {{ bloomery.json_without_keys(target_relation ~ '.' ~ raw, redact) }}
where {{ bloomery.json_has_any_key(raw, redact) }}
  {%- endif -%}
{%- endmacro %}
