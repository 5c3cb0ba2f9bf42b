{#- Writes the outcome: admitted rows replace their key's incumbent in the entity; resolved and
    superseded rejects get `resolved_at`; still-failing ones get their re-derived `failed_rules`
    (replay's `_restamp_failing`, macros/replay/replay.sql). `outcome` is the scratch table replay
    wrote: the re-judged rows, each with its `_bloomery_outcome` (admit / failing / collision /
    superseded). Admitted rows replace the rows of their key as `identity_key` names it. -#}
{% macro replay_apply(ir, kept, reject, outcome, now) -%}
  {{ return(adapter.dispatch('replay_apply', 'bloomery')(ir, kept, reject, outcome, now)) }}
{%- endmacro %}

{% macro default__replay_apply(ir, kept, reject, outcome, now) -%}
  {%- set q = adapter.quote -%}
  {%- set merged = ir.mappings | length > 1 -%}
  {%- set cols = [] -%}
  {%- for c in ir.columns %}{%- do cols.append(q(c.name)) -%}{%- endfor -%}
  {%- for pair in bloomery.delivered_keys(ir) %}{% do cols.append(q(pair[1])) %}{% endfor -%}
  {%- for m in bloomery.vocabulary().metadata %}{% do cols.append(q(m)) %}{% endfor -%}
  {%- do cols.extend(([q('_source')] if merged else []) + [q('_quality_flags'), q('_quality_ok')]) -%}
  {#- an outcome row of this reject row: same bronze relation, same source row id -#}
  {%- set same_row = 'o.' ~ q('_source_row_id') ~ ' = ' ~ reject ~ '.' ~ q('_source_row_id') ~ ' and o.' ~ q('_bloomery_source') ~ ' = ' ~ reject ~ '.' ~ q('source_relation') -%}
  {%- call statement('replay_admit') -%}
    delete from {{ kept }}
    {%- if merged %}
    where exists (select 1 from {{ outcome }} as o
                  where o.{{ q('_bloomery_outcome') }} = 'admit' and o.{{ q('_source_row_id') }} = {{ kept }}.{{ q('_source_row_id') }}
                    and o.{{ q('_bloomery_source') }} = {{ kept }}.{{ q('_source') }})
    {%- else %}
    where {{ q('_source_row_id') }} in (select {{ q('_source_row_id') }} from {{ outcome }} where {{ q('_bloomery_outcome') }} = 'admit')
    {%- endif %}
    {%- if ir.dedupe %}
       or exists (select 1 from {{ outcome }} as o
                  where o.{{ q('_bloomery_outcome') }} = 'admit'
                    {%- for k in bloomery.identity_key(ir) %} and o.{{ q(k) }} = {{ kept }}.{{ q(k) }}{% endfor %});
    {%- else %};
    {%- endif %}
    insert into {{ kept }} ({{ cols | join(', ') }})
    select {% for c in ir.columns %}{{ q(c.name) }}, {% endfor %}{% for pair in bloomery.delivered_keys(ir) %}{{ q(pair[1]) }}, {% endfor %}{% for m in bloomery.vocabulary().metadata %}{{ q(m) }}, {% endfor %}
           {% if merged %}{{ q('_bloomery_source') }}, {% endif %}{{ q('_quality_flags') }}, {{ q('_quality_ok') }}
    from {{ outcome }}
    where {{ q('_bloomery_outcome') }} = 'admit';
    update {{ reject }}
    set {{ q('resolved_at') }} = {{ now }},
        {{ q('last_evaluated_at') }} = {{ now }},
        {#- an admitted row keeps the rules that once held it, as history -#}
        {{ q('failed_rules') }} = case when exists (
            select 1 from {{ outcome }} as o where o.{{ q('_bloomery_outcome') }} = 'superseded' and {{ same_row }})
          then {{ bloomery.flag_list([['(superseded)', 'true']]) }} else {{ q('failed_rules') }} end
    where {{ q('resolved_at') }} is null
      and exists (select 1 from {{ outcome }} as o where o.{{ q('_bloomery_outcome') }} in ('admit', 'superseded') and {{ same_row }});
    {#- a collision (replay.sql) stays quarantined like a failing row, `(source_collision)` in its rules -#}
    {{ bloomery._restamp_failing(reject, outcome, q('_bloomery_outcome') ~ " in ('failing', 'collision')", now) }}
  {%- endcall -%}
{%- endmacro %}
