{#- The entity's post-hook, before anything publishes the staged table: this run's deliveries that
    were not kept. The kept ones are the entity's rows. -#}
{% macro ledger_rest_record(staged) -%}
  {%- if not execute -%}{{ return('select 1') }}{%- endif -%}
  {%- set q = adapter.quote -%}
  {%- set rest = bloomery.ledger_rest(this) -%}
  {%- set columns = bloomery._ledger_columns() -%}
insert into {{ rest }} ({% for c in columns %}{{ q(c) }}{{ ", " if not loop.last }}{% endfor %})
select {% for c in columns %}{{ q(c) }}{{ ", " if not loop.last }}{% endfor %}
from ({{ bloomery.ledger_rows(staged) }}) as verdicts
where {{ q('route') }} <> 'keep'
{%- endmacro %}
