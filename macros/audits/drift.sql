{#- `<entity>_drift`: quality over time in dbt's own output, one test per entity whatever the
    number of rules. It reads the entity's series of `quality_drift` (the statistic is there,
    macros/mart/quality_drift.sql, so whatever else judges a run against its baseline reads the
    same figures) and returns one row per measure of the entity's latest run that is out of band
    (metric `quarantine_rate`, `volume`, or `rule` with the rule's name), which dbt reports with
    the severity the spec gave (warn by default). Until the baseline holds min_history runs
    nothing is judged and the test passes.

    entity arrives as inert JSON (a spec name), read with bloomery.argument. -#}
{% test bloomery_drift(model, entity) %}
  {%- set name = bloomery.argument(entity) -%}
select entity, metric, rule, run_id, metric_value, baseline_runs, baseline_median, baseline_mad, band
from {{ model }}
where entity = {{ bloomery.string_literal(name) }}
  and is_latest
  and out_of_band
{% endtest %}
