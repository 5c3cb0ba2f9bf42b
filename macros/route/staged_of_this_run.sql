{#- The first pre-hook of the entity and of its reject table: both are built from the staged table
    of the same run. A build that published the staged table in place left `<entity>__staged` a
    view of what it published (publishes_staged.sql); a node selected without the staged model
    (`dbt run -s order`, `dbt build -s order__reject`) would read that view as a new run: the
    entity's delete of the re-judged keys would empty it, and the reject table would take narrow
    rows, without their bronze payload, for the stored ones. So such a node stops before it writes
    anything, saying which selection builds it. A hook, not the model's SQL: `dbt compile` and
    `dbt docs generate` render the SQL of every model without building the staged table first. -#}
{% macro staged_of_this_run(staged) -%}
  {%- if execute -%}
    {%- set found = load_relation(staged) -%}
    {%- if found is not none and found.is_view -%}
      {%- set name = staged.identifier -%}
      {%- set entity = name[:-('__staged' | length)] if name.endswith('__staged') else name -%}
      {%- do exceptions.raise_compiler_error(
            "bloomery: " ~ this.identifier ~ " is built from " ~ name ~ " of the same run, and " ~ name
            ~ " now holds what the last build published, not a run of its own. Select the staged model"
            ~ " with it, e.g. `dbt build -s " ~ name ~ "+` or `dbt build -s +" ~ entity ~ "`. Nothing was written.") -%}
    {%- endif -%}
  {%- endif -%}
  select 1
{%- endmacro %}
