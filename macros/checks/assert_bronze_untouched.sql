{#- Refuses, before any model runs, a build in which a relation bloomery generates is a relation the
    project reads as a source (bronze above all): dbt would replace the source table with the
    model on the first build, and its rows and columns would be gone. The package runs it as an
    on-run-start hook (dbt_project.yml), beside the engine check; it renders no SQL.

    `bloomery compile` refuses an entity or check whose generated relation has the name of a
    bronze relation of its specs (emit/clashes.py). This check sees what compile cannot: where the
    relations land (the bronze schema is `vars: bloomery_bronze_schema`, by default the target
    schema; a model's schema and alias can be configured), and the project's other sources.
    Generated: a model or snapshot tagged `bloomery` that builds a relation (not ephemeral). -#}
{% macro assert_bronze_untouched() -%}
  {%- if execute and flags.WHICH in ['build', 'run', 'snapshot', 'retry'] -%}
    {%- do bloomery._check_bronze_untouched(graph.nodes.values(), graph.sources.values()) -%}
  {%- endif -%}
{%- endmacro %}

{% macro _check_bronze_untouched(nodes, sources) -%}
  {%- set read = {} -%}
  {%- for s in sources -%}
    {#- compared case-insensitively: DuckDB, and every engine for unquoted names, folds case -#}
    {%- do read.update({((s.database or '') ~ '.' ~ s.schema ~ '.' ~ s.identifier) | lower: s}) -%}
  {%- endfor -%}
  {%- for n in nodes if n.resource_type in ['model', 'snapshot'] and 'bloomery' in (n.tags or [])
                          and n.config.materialized != 'ephemeral' -%}
    {%- set identifier = n.alias or n.name -%}
    {%- set source = read.get(((n.database or '') ~ '.' ~ n.schema ~ '.' ~ identifier) | lower) -%}
    {%- if source is not none -%}
      {{ exceptions.raise_compiler_error(
          "bloomery: the " ~ n.resource_type ~ " `" ~ n.name ~ "` would be built as " ~ n.schema ~ "." ~ identifier
          ~ ", which is the source `" ~ source.source_name ~ "." ~ source.name ~ "` this project reads: the build would "
          ~ "replace that table and its rows. Nothing was run. Rename the entity (or check) in the specs and run "
          ~ "`bloomery compile` again, or keep bronze in a schema of its own (`vars: {bloomery_bronze_schema: <schema>}`).") }}
    {%- endif -%}
  {%- endfor -%}
{%- endmacro %}
