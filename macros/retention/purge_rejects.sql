{#- Retention on demand, for one entity: `dbt run-operation bloomery.purge_rejects --args '{entity: order}'`.
    What retention deletes and when: purge_expired.sql. -#}
{% macro purge_rejects(entity) -%}
  {%- if not execute -%}{{ return(none) }}{%- endif -%}
  {%- set node = bloomery._node(entity ~ '__reject') -%}
  {%- set relation = bloomery._relation(entity ~ '__reject') -%}
  {%- if node is none or relation is none -%}
    {{ exceptions.raise_compiler_error("bloomery.purge_rejects: no built reject table for entity '" ~ entity ~ "'; run `bloomery compile` and `dbt build` first.") }}
  {%- endif -%}
  {%- set hours = node.config.meta.bloomery.quarantine.retention_hours -%}
  {%- set before = run_query('select count(*) from ' ~ relation).columns[0].values()[0] -%}
  {#- an engine without DELETE does the purge itself and renders no statement -#}
  {%- set purge = bloomery.purge_expired(hours, relation) -%}
  {%- if purge | trim -%}{%- call statement('purge') -%}{{ purge }}{%- endcall -%}{%- endif -%}
  {%- set after = run_query('select count(*) from ' ~ relation).columns[0].values()[0] -%}
  {%- do bloomery.end_transaction('purge_commit') -%}
  {{ log("bloomery.purge_rejects " ~ entity ~ ": " ~ (before - after) ~ " reject row(s) older than " ~ node.config.meta.bloomery.quarantine.retention ~ " deleted", info=true) }}
  {{ return(before - after) }}
{%- endmacro %}
