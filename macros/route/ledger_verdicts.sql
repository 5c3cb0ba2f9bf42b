{#- The relation the ledger's verdicts are written to, for retention to record 'expired' in: the
    rest table, or the ledger itself where it is a table (a type 2 entity, or a ledger written
    before the rest table existed); none without either. -#}
{% macro ledger_verdicts(database, schema, entity_name) -%}
  {%- set rest = adapter.get_relation(database=database, schema=schema, identifier=entity_name ~ '__ledger_rest') -%}
  {%- if rest is not none -%}{{ return(rest) }}{%- endif -%}
  {%- set ledger = adapter.get_relation(database=database, schema=schema, identifier=entity_name ~ '__ledger') -%}
  {{ return(ledger if ledger is not none and ledger.is_table else none) }}
{%- endmacro %}
