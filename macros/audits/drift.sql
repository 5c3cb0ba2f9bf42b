{#- `<entity>_drift_quarantine_rate`, `<entity>_drift_volume`, `<entity>_<rule>_drift`: quality
    over time in dbt's own output. Each reads one series of `quality_drift` (the statistic is
    there, macros/mart/quality_drift.sql, so whatever else judges a run against its baseline reads
    the same figures) and returns the entity's latest run when it is out of band: one row, which
    dbt reports with the severity the spec gave (warn by default). Until the baseline holds
    min_history runs nothing is judged and the test passes.

    entity, metric ('quarantine_rate', 'volume', 'rule') and rule ('(entity)' unless a rule)
    arrive as inert JSON (spec names), read with bloomery.argument. -#}
{% test bloomery_drift(model, entity, metric, rule) %}
  {%- set name, metric, rule = bloomery.argument(entity), bloomery.argument(metric), bloomery.argument(rule) -%}
select entity, metric, rule, run_id, metric_value, baseline_runs, baseline_median, baseline_mad, band
from {{ model }}
where entity = {{ bloomery.string_literal(name) }}
  and metric = {{ bloomery.string_literal(metric) }}
  and rule = {{ bloomery.string_literal(rule) }}
  and is_latest
  and out_of_band
{% endtest %}
