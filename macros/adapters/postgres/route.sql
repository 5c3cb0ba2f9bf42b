{#- PostgreSQL publishes the staged table in place, as DuckDB does (macros/route/publishes_staged.sql):
    dbt-postgres runs a model's post-hooks inside the node's transaction, before its COMMIT, and
    PostgreSQL's DDL is transactional, so a run killed inside the entity node leaves the staged
    table and the previous entity as they were. The steps cost little here: DELETE marks the
    rows not kept dead, DROP COLUMN only marks the column dropped, and RENAME is a catalogue
    update; none of them writes the kept tuples again. The tables stay logged (docs/design.md,
    "Relations of one run"). -#}
{% macro postgres__publishes_staged(entity) -%}
  {{ return(bloomery._publishable(entity)) }}
{%- endmacro %}

{% macro postgres__publish_staged(mapping, source, staged) -%}
  {{- bloomery._publish_in_place(mapping, source, staged) -}}
{%- endmacro %}
