{#- Stops an entity's `__staged` model, before its query reaches the engine, when a bronze relation
    lacks a column the entity reads: the ingestion metadata (`_load_id`, `_ingested_at`,
    `_source_row_id`) of an entity that deduplicates or quarantines, a column a mapping reads, or
    one it keeps in the reject payload (`unmapped:`). The message names the relation, every missing
    column and the fix, where the engine would say `Referenced column "_ingested_at" not found`.

    Called first thing by quality_split, only when dbt is about to run the model (`build`, `run`,
    `retry`): `dbt compile`, `docs generate` and `show` send nothing. Replay's sources (reject rows
    rebuilt as bronze, a subquery) and a relation the adapter does not find (the engine's own
    "does not exist" names it) are left alone. The columns are read by bronze_column_names, never
    through adapter.get_columns_in_relation: dbt-postgres (and adapters built on it) write the
    relation's name into that query as a bare string literal, and a bronze relation's name is spec
    data (tests/integration/test_hostile_specs.py).

    Column names are matched exactly where a quoted name is case-sensitive (PostgreSQL, Snowflake),
    in any case where the engine folds it (see bronze_names_fold_case). -#}
{% macro assert_bronze_columns(entity, sources) -%}
  {%- if not execute or flags.WHICH not in ['build', 'run', 'retry'] -%}{{ return(none) }}{%- endif -%}
  {%- set meta = bloomery.vocabulary().metadata -%}
  {%- set fold = bloomery.bronze_names_fold_case() -%}
  {%- set problems = [] -%}
  {%- for mapping in entity.mappings -%}
    {%- set relation = sources.get(mapping.source) -%}
    {%- if relation is not none and relation is not string
          and adapter.get_relation(database=relation.database, schema=relation.schema, identifier=relation.identifier) is not none -%}
      {%- set present = bloomery.bronze_column_names(relation) -%}
      {%- if present -%}
        {%- set seen = {} -%}
        {%- for c in present -%}{%- do seen.update({(c | lower) if fold else c: c}) -%}{%- endfor -%}
        {%- set needed = [] -%}
        {%- for c in mapping.read_columns + ((mapping.raw_columns + meta) if entity.metadata else []) -%}
          {%- if c not in needed -%}{%- do needed.append(c) -%}{%- endif -%}
        {%- endfor -%}
        {%- for c in needed if ((c | lower) if fold else c) not in seen -%}
          {%- do problems.append(bloomery._bronze_column_problem(entity, mapping, relation, c, present, meta)) -%}
        {%- endfor -%}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if problems -%}
    {{ exceptions.raise_compiler_error("bloomery: entity " ~ entity.entity ~ " can not be judged: its bronze is missing "
        ~ ("a column" if problems | length == 1 else (problems | length) ~ " columns") ~ ".\n  - "
        ~ problems | join("\n  - ")) }}
  {%- endif -%}
{%- endmacro %}

{% macro _bronze_column_problem(entity, mapping, relation, column, present, meta) -%}
  {%- set text = "bronze relation " ~ relation ~ " has no column " ~ adapter.quote(column) -%}
  {%- set other = [] -%}
  {%- for c in present if c | lower == column | lower -%}{%- do other.append(c) -%}{%- endfor -%}
  {%- if other -%}
    {%- set text = text ~ " (it has " ~ adapter.quote(other[0]) ~ ": this engine compares quoted names exactly; "
                   ~ "rename the column to " ~ adapter.quote(column) ~ ")" -%}
  {%- endif -%}
  {%- if column in meta and column not in mapping.read_columns -%}
    {{ return(text ~ ", ingestion metadata that entity " ~ entity.entity ~ " needs because it deduplicates or "
       ~ "quarantines (`_load_id`: the delivery the row came in; `_ingested_at`: when it landed, castable to a "
       ~ "timestamp; `_source_row_id`: its identity, stable across re-deliveries). Fix: have the loader write `"
       ~ column ~ "` into " ~ mapping.source ~ " (docs/getting-started.md, \"Land bronze\").") }}
  {%- endif -%}
  {%- set reads = [] -%}
  {%- for c in mapping.columns if c.source_column == column -%}
    {%- do reads.append(c.name ~ ": from $." ~ column ~ ('.' ~ c.json_path[2:] if c.json_path else '')) -%}
  {%- endfor -%}
  {%- if reads -%}
    {{ return(text ~ ": mapping " ~ mapping.mapping ~ " reads it (" ~ reads | join(", ") ~ "). Fix: add the column "
       ~ "to the relation, or point `from:` at one it has and run `bloomery compile` again.") }}
  {%- endif -%}
  {{ return(text ~ ": mapping " ~ mapping.mapping ~ " lists it under `unmapped:` (kept in the reject table's `raw`). "
     ~ "Fix: add the column to the relation, or remove it from `unmapped:` and run `bloomery compile` again.") }}
{%- endmacro %}
