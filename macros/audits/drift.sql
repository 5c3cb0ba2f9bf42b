{#- `<entity>_drift`: the entity's inputs and measures against its earlier builds, in dbt's own
    output, one test per entity whatever the number of rules or bronze columns. It returns one row
    per thing that moved:

    - a measure of the entity's latest run that is out of band (metric `quarantine_rate`,
      `volume`, or `rule` with the rule's name), read from its series of `quality_drift` (the
      statistic is there, macros/mart/quality_drift.sql, so whatever else judges a run against its
      baseline reads the same figures). Until the baseline holds min_history runs nothing is
      judged;
    - a column a bronze relation of the entity gained, lost or retyped since the build before
      (metric `bronze_column`, with the relation, the column, the change and both types), read
      from `quality_bronze_columns` (bronze_schema_changes).

    The two parts have their own severity in the spec (`drift.severity`, `schema_changes`); one
    node carries both: the YAML gives the test the stronger one, and when that is `error` its
    `error_if` also asks `max(blocking) = 1`, so the rows of the part that only warns make a WARN
    and never an ERROR (dbt evaluates `<fail_calc> <error_if>` over these rows). Each row says in
    `blocking` which it is.

    measures  `quality_drift`, or none (the entity's drift is `severity: ignore`)
    columns   `quality_bronze_columns`, or none (`schema_changes: ignore`)
    published the entity itself: read by nothing, it makes the test one of the entity's in dbt's
              graph, so `dbt build -s tag:bloomery_<entity> --indirect-selection cautious` runs
              this entity's drift test and no other's (the measures and columns are every
              entity's relations, selected with any of them)
    entity, sources, blocking arrive as inert JSON (spec names), read with bloomery.argument;
    `blocking` lists the parts whose rows are errors (`measures`, `columns`). -#}
{% test bloomery_drift(model, entity, measures=none, columns=none, sources=[], blocking=[], published=none) %}
  {%- set name, blocking = bloomery.argument(entity), bloomery.argument(blocking) -%}
  {%- set f, s, i = dbt.type_float(), bloomery.type_name({'name': 'string'}), bloomery.type_name({'name': 'int'}) -%}
  {%- set parts = [] -%}
  {%- if measures is not none -%}
  {%- set part -%}
select entity, metric, rule, run_id, metric_value, baseline_runs, baseline_median, baseline_mad, band,
  cast(null as {{ s }}) as source_name, cast(null as {{ s }}) as column_name, cast(null as {{ s }}) as change,
  cast(null as {{ s }}) as type_before, cast(null as {{ s }}) as type_after,
  cast({{ 1 if 'measures' in blocking else 0 }} as {{ i }}) as blocking
from {{ measures }}
where entity = {{ bloomery.string_literal(name) }}
  and is_latest
  and out_of_band
  {%- endset -%}
  {%- do parts.append(part) -%}
  {%- endif -%}
  {%- if columns is not none -%}
  {%- set names = [] -%}
  {%- for source in bloomery.argument(sources) -%}{%- do names.append(bloomery.string_literal(source)) -%}{%- endfor -%}
  {%- set part -%}
select cast({{ bloomery.string_literal(name) }} as {{ s }}) as entity, cast('bronze_column' as {{ s }}) as metric,
  cast(c.source_name || '.' || c.column_name as {{ s }}) as rule, cast(c.run_id as {{ s }}) as run_id,
  cast(null as {{ f }}) as metric_value, cast(null as {{ i }}) as baseline_runs, cast(null as {{ f }}) as baseline_median,
  cast(null as {{ f }}) as baseline_mad, cast(null as {{ f }}) as band,
  cast(c.source_name as {{ s }}) as source_name, cast(c.column_name as {{ s }}) as column_name,
  cast(c.change as {{ s }}) as change, cast(c.type_before as {{ s }}) as type_before,
  cast(c.type_after as {{ s }}) as type_after,
  cast({{ 1 if 'columns' in blocking else 0 }} as {{ i }}) as blocking
from ({{ bloomery.bronze_schema_changes(columns, names) }}) as c
  {%- endset -%}
  {%- do parts.append(part) -%}
  {%- endif %}
{{ parts | join('\nunion all\n') }}
{% endtest %}
