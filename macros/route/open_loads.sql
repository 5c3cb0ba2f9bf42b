{#- The loads (bronze relation, `_load_id`) whose bronze rows the ledger does not account for one
    for one: a load the ledger holds as many deliveries of as bronze does is settled, and its rows
    are not matched one by one (at 10M bronze rows, counting per load costs a twentieth of the
    row-by-row match). A new load, a retried one under a new id and a late part of a judged load
    are open; so is a load bronze has dropped rows of (retention), whose remaining rows then match.
    Bronze is append-only deliveries: a load rewritten in place with as many rows as it had is
    taken as settled (a full refresh judges it again). A NULL `_load_id` is a group of its own,
    open, and matches no ledger row.

    `grown`: bronze holds more rows of the load than the ledger recorded (a new load, a late part,
    a retry into it): the batch judges all of its rows again, not only the identities the ledger
    lacks, so a row of it rewritten in place is judged as a full refresh would judge it (a kept
    delivery is recorded without its content, docs/design.md "Written once").

    bronze  [[bronze relation name, relation], ...]; ledger the entity's `__ledger` relation. -#}
{% macro open_loads(bronze, ledger) -%}
  {%- set q = adapter.quote -%}
  {%- for name, relation in bronze %}
  select {{ bloomery.string_literal(name) }} as {{ q('source_relation') }}, b.{{ q('_load_id') }},
         l.n is null or b.n > l.n as {{ q('grown') }}
  from (select {{ q('_load_id') }}, count(*) as n from {{ relation }} group by {{ q('_load_id') }}) as b
  left join (select {{ q('_load_id') }}, count(*) as n from {{ ledger }}
             where {{ q('source_relation') }} = {{ bloomery.string_literal(name) }}
             group by {{ q('_load_id') }}) as l
    on l.{{ q('_load_id') }} = b.{{ q('_load_id') }}
  where l.n is null or l.n <> b.n
  {%- if not loop.last %}
  union all
  {%- endif %}
  {%- endfor %}
{%- endmacro %}
