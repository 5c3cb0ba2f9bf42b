{#- dbt-bigquery's incremental strategies are merge, insert_overwrite and microbatch: no append, no
    delete+insert. Each write keeps its meaning as a MERGE, chosen here at parse time.
    The entity: its pre-hook has already deleted every row the batch re-judges, so a merge on
    `_source_row_id` finds no match and only inserts, as append would (a merged entity's rows are
    identified with their `_source` too: two relations may reuse a source row id). -#}
{% macro bigquery__entity_rows(entity, staged) -%}
  {%- do config(incremental_strategy='merge', unique_key=['_source', '_source_row_id'] if entity.mappings | length > 1 else '_source_row_id') -%}
  {{ return(bloomery.default__entity_rows(entity, staged)) }}
{%- endmacro %}

{#- The ledger: its pre-hook has forgotten the re-judged source rows, so a merge on the delivery's
    identity only inserts, as append would. -#}
{% macro bigquery__ledger_rows(staged) -%}
  {%- do config(incremental_strategy='merge', unique_key=['source_relation', '_source_row_id', '_load_id', '_ingested_at']) -%}
  {{ return(bloomery.default__ledger_rows(staged)) }}
{%- endmacro %}
