{% macro ledger_rest_create(rest, sql) -%}
  {{ return(adapter.dispatch('ledger_rest_create', 'bloomery')(rest, sql)) }}
{%- endmacro %}

{% macro default__ledger_rest_create(rest, sql) -%}
create table {{ rest }} as
{{ sql }}
{%- endmacro %}
