{#- Called by redact_rejects and by the Spark reject rebuild (spark__reject_rows). How each engine
    stores `raw`, and how Redshift cuts a member from its text: see its json_has_any_key, beside
    its json_without_keys in macros/adapters/<engine>/reject.sql. -#}
{#- The JSON object `expr` without its top-level keys in `keys` (any letter case), the other
    members (values and order) as they were. -#}
{% macro json_without_keys(expr, keys) -%}
  {{ return(adapter.dispatch('json_without_keys', 'bloomery')(expr, keys)) }}
{%- endmacro %}

{% macro default__json_without_keys(expr, keys) -%}{{ bloomery.no_portable_form("json_without_keys", "removing top-level keys from a JSON object") }}{%- endmacro %}
