{#- The entity's pre-hook: the rest table exists (created empty, in the ledger's columns and types,
    on the first build; seeded from a ledger table written before it, so upgrading loses no
    verdict), and forgets the verdicts this run replaces (`ledger_forget_rejudged`). `everything`:
    this build judges all of bronze (a `full` entity). -#}
{% macro ledger_rest_forget(staged, everything=false) -%}
  {%- if not execute -%}{{ return('select 1') }}{%- endif -%}
  {%- set rest = bloomery.ledger_rest(this) -%}
  {%- if adapter.get_relation(database=rest.database, schema=rest.schema, identifier=rest.identifier) is none -%}
    {%- set old = adapter.get_relation(database=this.database, schema=this.schema, identifier=this.identifier ~ '__ledger') -%}
    {%- do run_query(bloomery.ledger_rest_create(rest, bloomery.ledger_rows(staged) ~ '\nwhere 1 = 0')) -%}
    {%- if old is not none and old.is_table -%}
      {%- do run_query(bloomery._ledger_rest_seed(rest, old)) -%}
    {%- endif -%}
  {%- endif -%}
  {{ return(bloomery._ledger_forget(staged, everything, false, rest)) }}
{%- endmacro %}

{#- the not-kept verdicts of a ledger table written before the rest table (the kept ones are the entity's rows) -#}
{% macro _ledger_rest_seed(rest, old) -%}
  {%- set q = adapter.quote -%}
  {%- set have = adapter.get_columns_in_relation(old) | map(attribute='name') | map('lower') | list -%}
insert into {{ rest }} ({% for c in bloomery._ledger_columns() %}{{ q(c) }}{{ ", " if not loop.last }}{% endfor %})
select {% for c in bloomery._ledger_columns() %}{% if c in have %}{{ q(c) }}{% else %}null{% endif %}{{ ", " if not loop.last }}{% endfor %}
from {{ old }}
where {{ q('route') }} <> 'keep'
{%- endmacro %}
