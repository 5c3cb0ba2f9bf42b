{#- One snapshot per run, keyed by run_id: appended, after a pre-hook rewrites away rows of the
    same run_id (only a retried run has any). -#}
{% macro spark__mart_data_quality(entities, reconcile) -%}
  {%- do config(incremental_strategy='append', pre_hook=['{{ bloomery.spark_drop_run() }}']) -%}
  {{ return(bloomery.default__mart_data_quality(entities, reconcile)) }}
{%- endmacro %}

{% macro spark_drop_run() -%}
  {%- if execute and is_incremental() -%}
    {%- set where = 'run_id = ' ~ bloomery.string_literal(invocation_id) -%}
    {%- do bloomery._spark_rewrite(this, 'select * from ' ~ this ~ ' where not (' ~ where ~ ')', drops_only=true) -%}
  {%- endif -%}
{%- endmacro %}
