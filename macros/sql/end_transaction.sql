{#- Ends the transaction a run-operation leaves open (replay, purge_rejects), so everything it
    did lands together. An engine without transactions has nothing to end. -#}
{% macro end_transaction(name='commit') -%}
  {{ return(adapter.dispatch('end_transaction', 'bloomery')(name)) }}
{%- endmacro %}

{% macro default__end_transaction(name) -%}
  {%- call statement(name) -%}commit{%- endcall -%}
{%- endmacro %}
