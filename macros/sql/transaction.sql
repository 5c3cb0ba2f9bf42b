{#- Ends the transaction a run-operation leaves open (replay, purge_rejects), so everything it
    did lands together. An engine without transactions has nothing to end. -#}
{% macro end_transaction(name='commit') -%}
  {{ return(adapter.dispatch('end_transaction', 'bloomery')(name)) }}
{%- endmacro %}

{% macro default__end_transaction(name) -%}
  {%- call statement(name) -%}commit{%- endcall -%}
{%- endmacro %}

{#- A table a run-operation writes its intermediate results to, dropped before it returns. -#}
{% macro scratch_relation(identifier) -%}
  {{ return(adapter.dispatch('scratch_relation', 'bloomery')(identifier)) }}
{%- endmacro %}

{% macro default__scratch_relation(identifier) -%}
  {{ return(api.Relation.create(identifier=identifier)) }}
{%- endmacro %}

{#- The statement that materializes `sql` into the scratch table `relation`: the rows are read
    again after the tables they came from have changed, so a lazy view would not do. -#}
{% macro create_scratch_table(relation, sql) -%}
  {{ return(adapter.dispatch('create_scratch_table', 'bloomery')(relation, sql)) }}
{%- endmacro %}

{% macro default__create_scratch_table(relation, sql) -%}
  create temporary table {{ relation }} as
  {{ sql }}
{%- endmacro %}
