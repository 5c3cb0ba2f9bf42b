{#- Judge (`joined`, `judged`): every rule evaluated once per candidate, each verdict one column
    (`_bloomery_rule__<rule>`) that the route and the flag list read. The referential rules'
    parent keys and the unresolved reject rows that hold a delivery (`_bloomery_held`) are joined
    first, so each verdict is a test on the row itself. -#}
{% macro stage_judge(staging) -%}
  {{ return(adapter.dispatch('stage_judge', 'bloomery')(staging)) }}
{%- endmacro %}

{% macro default__stage_judge(staging) -%}
{%- set q = adapter.quote -%}
{%- set entity, parents, held = staging.entity, staging.parents, staging.held -%}
{%- set rules = entity.rules %}
{#- One pass over every candidate: the rows dedupe drops stay in the relation (route 'deduped')
    rather than being read a second time for a union, which would run the dedupe window twice.
    Their verdicts are computed and ignored; `unique` counts survivors only (rule_violation). #}
joined as (
  select ranked.*,
  {%- if held is not none %}
    {{ q('_bloomery_held') }}.{{ q('_source_row_id') }} is not null as {{ q('_bloomery_held') }}
  {%- else %}
    false as {{ q('_bloomery_held') }}
  {%- endif %}
  {%- for r in rules if r.rule == 'referential' %},
    {#- NULL when no parent key matched: the parent's first key column is never NULL there #}
    {{ q('_bloomery_ref_' ~ loop.index0) }}.{{ q('_bloomery_ref_k0') }} as {{ q('_bloomery_ref__' ~ r.relationship) }}
  {%- endfor %}
  from ranked
  {%- for r in rules if r.rule == 'referential' %}
  {#- this rule's alias, named here: inside the loops over pairs below, loop.index0 counts pairs -#}
  {%- set alias = '_bloomery_ref_' ~ loop.index0 %}
  {#- The distinct parent keys and nothing else: over a single key column PostgreSQL then knows
      the join's parent side is unique and hashes its keys, not the wide staged rows (with a
      constant beside the key it hashed the staged rows, 64 batches at 1M; docs/performance.md).
      A hashed `in (select ...)` would do the same for small parents, but above the hash memory
      limit PostgreSQL runs it as a linear scan of the parent keys per row. #}
  left join (
  {%- if parents[r.parent] is none %}
    select {% for pair in r.pairs %}cast(null as {{ bloomery.type_name({'name': 'string'}) }}) as {{ q('_bloomery_ref_k' ~ loop.index0) }}{{ ", " if not loop.last }}{% endfor %}
    where 1 = 0
  {%- else %}
    select distinct {% for pair in r.pairs %}{{ q(pair[1]) }} as {{ q('_bloomery_ref_k' ~ loop.index0) }}{{ ", " if not loop.last }}{% endfor %}
    from {{ parents[r.parent] }}
    where {% for pair in r.pairs %}{{ q(pair[1]) }} is not null and {% endfor %}{{ bloomery._not_unknown_member(r, q) }}
  {%- endif %}
  ) as {{ q(alias) }}
    on {% for pair in r.pairs %}{{ q(alias) }}.{{ q('_bloomery_ref_k' ~ loop.index0) }} = ranked.{{ q(pair[0]) }}{{ " and " if not loop.last }}{% endfor %}
  {%- endfor %}
  {%- if held is not none %}
  {#- the delivery an unresolved reject row records (its latest diverted one): one row at most per
      (bronze relation, source row id) #}
  left join (
    select {{ q('source_relation') }}, {{ q('_source_row_id') }}, {{ q('_load_id') }}, {{ q('_ingested_at') }}
    from {{ held }} where {{ q('resolved_at') }} is null
  ) as {{ q('_bloomery_held') }}
    on {{ q('_bloomery_held') }}.{{ q('_source_row_id') }} = ranked.{{ q('_source_row_id') }}
   and {{ q('_bloomery_held') }}.{{ q('_load_id') }} = ranked.{{ q('_load_id') }}
   and {{ q('_bloomery_held') }}.{{ q('_ingested_at') }} = ranked.{{ q('_ingested_at') }}
   and {{ q('_bloomery_held') }}.{{ q('source_relation') }} = ranked.{{ q('_bloomery_source') }}
  {%- endif %}
),
judged as (
  select
    joined.*
  {%- for r in rules %},
    coalesce({{ bloomery.rule_violation(r) }}, {{ 'true' if entity.route.null_fires else 'false' }}) as {{ q('_bloomery_rule__' ~ r.name) }}
  {%- endfor %}
  from joined
  {#- each verdict is read by the route, `_bloomery_fired`, `_bloomery_diverts` and the flag list:
      computed once (PostgreSQL would otherwise repeat a rule's test, a pattern match say, at
      every read; docs/performance.md) #}
  {%- set once = bloomery.evaluate_once() | trim %}
  {%- if once %}
  {{ once }}
  {%- endif %}
),
{%- endmacro %}

{#- The parent keys a referential rule matches leave out the Unknown member row. Only a
    single-column reference tests it: the member row holds '__unknown__' in one column and NULL
    in the others, which the `is not null` tests of a composite reference drop already. -#}
{% macro _not_unknown_member(rule, q) -%}
  {%- if rule.pairs | length == 1 -%}{{ bloomery.not_the_unknown_member(q(rule.pairs[0][1])) }}{%- else -%}true{%- endif -%}
{%- endmacro %}
