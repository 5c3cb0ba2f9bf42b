{#- Replay's intermediate tables: real parquet tables in the target schema (a view would be
    re-read after the entity has changed under it). -#}
{% macro spark__scratch_relation(identifier) -%}
  {{ return(api.Relation.create(schema=target.schema, identifier=identifier, type='table')) }}
{%- endmacro %}

{% macro spark__create_scratch_table(relation, sql) -%}
  {%- do run_query('drop table if exists ' ~ relation) -%}
  create table {{ relation }} using parquet as
  {{ sql }}
{%- endmacro %}

{#- Replay's writes as two rewrites: the entity (admitted rows replace their key's incumbent) and
    the reject table (both UPDATEs of the default as CASE expressions). -#}
{% macro spark__replay_apply(ir, kept, reject, outcome, now) -%}
  {%- set q = adapter.quote -%}
  {#- a merged entity's rows are identified by (bronze relation, source row id) -#}
  {%- set merged = ir.mappings | length > 1 -%}
  {%- set o_ = q('_bloomery_outcome') -%}
  {%- set cols = [] -%}
  {%- for c in ir.columns %}{%- do cols.append(q(c.name)) -%}{%- endfor -%}
  {%- for pair in bloomery.delivered_keys(ir) %}{% do cols.append(q(pair[1])) %}{% endfor -%}
  {%- for m in bloomery.vocabulary().metadata %}{% do cols.append(q(m)) %}{% endfor -%}
  {%- do cols.extend(([q('_source')] if merged else []) + [q('_quality_flags')]) -%}
  {%- set key = bloomery.identity_key(ir) -%}
  {%- set entity_sql -%}
    select {% for c in cols %}t.{{ c }}, {% endfor %}t.{{ q('_quality_ok') }}
    from {{ kept }} as t
    left anti join (select {{ q('_source_row_id') }}, {{ q('_bloomery_source') }} from {{ outcome }} where {{ o_ }} = 'admit') as a
      on t.{{ q('_source_row_id') }} = a.{{ q('_source_row_id') }}
      {%- if merged %} and t.{{ q('_source') }} = a.{{ q('_bloomery_source') }}{% endif %}
    {%- if ir.dedupe %}
    left anti join (select {% for k in key %}{{ q(k) }}{{ ", " if not loop.last }}{% endfor %} from {{ outcome }} where {{ o_ }} = 'admit') as ak
      on {% for k in key %}t.{{ q(k) }} = ak.{{ q(k) }}{{ " and " if not loop.last }}{% endfor %}
    {%- endif %}
    union all
    select {% for c in cols %}{{ q('_bloomery_source') if c == q('_source') else c }}, {% endfor %}{{ q('_quality_ok') }}
    from {{ outcome }}
    where {{ o_ }} = 'admit'
  {%- endset -%}
  {%- do bloomery._spark_rewrite(kept, entity_sql) -%}
  {#- `o` is the outcome of this very row (joined below on bronze relation and source row id) -#}
  {%- set open = 'r.' ~ q('resolved_at') ~ ' is null and o.' ~ q('_source_row_id') ~ ' is not null' -%}
  {%- set resolved = '(' ~ open ~ ' and o.' ~ o_ ~ " in ('admit', 'superseded'))" -%}
  {%- set superseded = '(' ~ open ~ ' and o.' ~ o_ ~ " = 'superseded')" -%}
  {%- set restamped = '(' ~ open ~ ' and o.' ~ o_ ~ " in ('failing', 'collision') and (r." ~ q('last_evaluated_at') ~ ' is null or '
        ~ bloomery.flags_text('o.' ~ q('_quality_flags')) ~ ' <> ' ~ bloomery.flags_text('r.' ~ q('failed_rules')) ~ '))' -%}
  {%- set reject_sql -%}
    select
    {%- for c in bloomery._reject_columns() %}
      {%- if c == 'resolved_at' %}
      case when {{ resolved }} then {{ now }} else r.{{ q(c) }} end as {{ q(c) }}
      {%- elif c == 'last_evaluated_at' %}
      case when {{ resolved }} or {{ restamped }} then {{ now }} else r.{{ q(c) }} end as {{ q(c) }}
      {%- elif c == 'failed_rules' %}
      case when {{ superseded }} then {{ bloomery.flag_list([['(superseded)', 'true']]) }}
           when {{ restamped }} then o.{{ q('_quality_flags') }} else r.{{ q(c) }} end as {{ q(c) }}
      {%- else %}
      r.{{ q(c) }}
      {%- endif %}{{ "," if not loop.last }}
    {%- endfor %}
    from {{ reject }} as r
    left join (select {{ q('_source_row_id') }}, {{ q('_bloomery_source') }}, {{ o_ }}, {{ q('_quality_flags') }} from {{ outcome }}) as o
      on o.{{ q('_source_row_id') }} = r.{{ q('_source_row_id') }} and o.{{ q('_bloomery_source') }} = r.{{ q('source_relation') }}
  {%- endset -%}
  {%- do bloomery._spark_rewrite(reject, reject_sql) -%}
{%- endmacro %}
