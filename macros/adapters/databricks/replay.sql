{% macro databricks__replay_apply(ir, kept, reject, outcome, now) -%}
  {{ return(bloomery.default__replay_apply(ir, kept, reject, outcome, now)) }}
{%- endmacro %}
