{% macro databricks__entity_delete_touched(key, dedupe, staged, merged=false) -%}
  {{ return(bloomery.default__entity_delete_touched(key, dedupe, staged, merged)) }}
{%- endmacro %}

{% macro databricks__ledger_forget_rejudged(staged, everything, versions=false) -%}
  {{ return(bloomery.default__ledger_forget_rejudged(staged, everything, versions)) }}
{%- endmacro %}
