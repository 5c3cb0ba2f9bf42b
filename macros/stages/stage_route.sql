{#- Route (`versioned`, `routed` and the query's final select): each candidate's route, the first
    of 'deduped', 'held', 'quarantine' and 'keep' that applies (which rules divert and which flag
    are the compiler's `Route`), whether it fired a flag rule, and the columns every staged row
    carries (`_quality_flags`, `_quality_ok`, a quarantined row's payload). A type 2 entity first
    names its current version (`versioned`). The last stage: the query ends here. -#}
{% macro stage_route(staging) -%}
  {{ return(adapter.dispatch('stage_route', 'bloomery')(staging)) }}
{%- endmacro %}

{% macro default__stage_route(staging) -%}
{%- set q = adapter.quote -%}
{%- set entity, merged = staging.entity, staging.merged -%}
{%- set key = entity.key %}
{%- set divert = entity.route.divert %}
{%- set versions = bloomery._versions(entity) %}
{%- if versions %}
{#- A type 2 entity's current version is its newest delivery that is kept: a newer delivery that is
    diverted (quarantined, or held by its reject row) is no version, so the one before it stays
    current, and stays the key's kept delivery in the ledger (docs/design.md, "Type 2 versions").
    One window, ordered kept-able first then by dedupe's rank, names that delivery's rank and
    source row for every row of the key; with no kept-able delivery it is the newest, as dedupe
    decides any key. A source row has one reject row: of its deliveries newer than the current
    one, only its newest takes its own route, and the older ones (a retried or re-delivered dirty
    row, a copy) lose to it, named as their winner. -#}
{%- set keys = [] %}{% for k in key %}{% do keys.append(q(k)) %}{% endfor %}
{%- set diverted -%}
  ({{ q('_bloomery_held') }}{% for name in divert %} or {{ q('_bloomery_rule__' ~ name) }}{% endfor %})
{%- endset %}
{%- set window -%}
  over (partition by {{ bloomery._dedupe_partition(keys, q('_bloomery_source') if merged else none) }}
        order by case when {{ diverted }} then 1 else 0 end, {{ q('_bloomery_rank') }})
{%- endset %}
versioned as (
  select
    judged.*,
    first_value({{ q('_bloomery_rank') }}) {{ window }} as {{ q('_bloomery_current_rank') }},
    first_value({{ q('_source_row_id') }}) {{ window }} as {{ q('_bloomery_current') }},
    min({{ q('_bloomery_rank') }}) over (partition by {{ bloomery._dedupe_partition(keys, q('_bloomery_source') if merged else none) }}, {{ q('_source_row_id') }}) as {{ q('_bloomery_row_rank') }}
  from judged
),
{%- endif %}
{#- The route (decided by the compiler: resolve/ir.py, Route) and "fired any rule" are computed
    once per row here: the columns below test them instead of repeating an OR over every rule per
    column. #}
{%- set survivor = ('(' ~ q('_bloomery_rank') ~ ' = ' ~ q('_bloomery_current_rank') ~ ' or (' ~ q('_bloomery_rank') ~ ' < '
                    ~ q('_bloomery_current_rank') ~ ' and ' ~ q('_bloomery_rank') ~ ' = ' ~ q('_bloomery_row_rank') ~ '))')
                   if versions else q('_bloomery_rank') ~ ' = 1' %}
routed as (
  select
    {{ 'versioned' if versions else 'judged' }}.*,
    case when not ({{ survivor }}) then 'deduped'
      when {{ q('_bloomery_held') }} then 'held'
  {%- if divert %}
      when {% for name in divert %}{{ q('_bloomery_rule__' ~ name) }}{{ " or " if not loop.last }}{% endfor %} then 'quarantine'
  {%- endif %}
      else 'keep' end as {{ q('_bloomery_route') }},
    {{ survivor }} and ({% for name in entity.route.flags %}{{ q('_bloomery_rule__' ~ name) }}{{ " or " if not loop.last }}{% else %}false{% endfor %}) as {{ q('_bloomery_fired') }}
  {%- if entity.quarantine %},
    {#- whether this delivery, winner or not, fails a quarantine rule: the reject table's
        `first_seen` is the earliest such delivery of a source row (a clean one does not count) #}
    {% for name in divert %}{{ q('_bloomery_rule__' ~ name) }}{{ " or " if not loop.last }}{% else %}false{% endfor %} as {{ q('_bloomery_diverts') }}
  {%- endif %}
  from {{ 'versioned' if versions else 'judged' }}
)
{%- set flag_items = [] -%}
{%- for name in entity.route.flags %}{%- do flag_items.append([name, q('_bloomery_rule__' ~ name)]) -%}{%- endfor %}
select
  {{ bloomery._staged_columns(entity) }},
  {#- most rows fire nothing: the list is built only for the rows that do #}
  case when {{ q('_bloomery_fired') }} then {{ bloomery.flag_list(flag_items) }} else {{ bloomery.empty_flags() }} end as {{ q('_quality_flags') }},
  {#- the list is empty exactly when no flag rule fired: computed here, once, so the entity copies it
      and a published staged table already carries it (an UPDATE adding it afterwards rewrites
      every tuple on PostgreSQL) -#}
  not {{ q('_bloomery_fired') }} as {{ q('_quality_ok') }},
  {{ q('_bloomery_route') }}
  {%- if entity.quarantine %},
  {{ q('_bloomery_diverts') }}
  {%- endif %}
from routed
{%- endmacro %}

{#- Whether the split decides a type 2 entity's current version (see `versioned`): only where an
    order ranks its deliveries (replay judges its candidates without one and contests them itself). -#}
{% macro _versions(entity) -%}
  {{ return(entity.get('scd') == 'type2' and entity.metadata and entity.dedupe is not none) }}
{%- endmacro %}

{#- The columns every staged row carries, typed as the entity declares them. The bronze payload (`_bloomery_raw`, the reject
    table's `raw`) is built only on quarantined rows, the only ones the reject table reads: as one
    value rather than a column per bronze column, it costs nothing on the rows that are kept. A
    merged entity's row gets the payload of the mapping that produced it. -#}
{% macro _staged_columns(entity) -%}
  {%- set q = adapter.quote -%}
  {%- set route = q('_bloomery_route') -%}
  {%- set cols = [q('_bloomery_mapping'), q('_bloomery_source')] -%}
  {%- for col in entity.columns -%}
    {%- set repair = entity.route.repair.get(col.name) -%}
    {%- if repair -%}
      {#- the one repair v1 states openly: an orphan key becomes the reserved Unknown member, on
          the rows the entity publishes (a diverted row's `key_values` is the key it was delivered
          under, the key replay judges it by) -#}
      {%- do cols.append("case when " ~ route ~ " = 'keep' and " ~ q('_bloomery_rule__' ~ repair) ~ " then " ~ bloomery.string_literal(bloomery.vocabulary().unknown_member) ~ " else " ~ q(col.name) ~ " end as " ~ q(col.name)) -%}
    {%- elif col.type.name == 'decimal' -%}
      {#- the declared precision and scale, already in the staged table: on PostgreSQL the guarded
          cast (CASE WHEN ... THEN cast(x as numeric(p,s)) END) types as a bare numeric, and
          altering the type of a published column afterwards rewrites the table -#}
      {%- do cols.append('cast(' ~ q(col.name) ~ ' as ' ~ bloomery.type_name(col.type) ~ ') as ' ~ q(col.name)) -%}
    {%- else -%}
      {%- do cols.append(q(col.name)) -%}
    {%- endif -%}
  {%- endfor -%}
  {#- a rewritten key column's delivered value, which identifies the row (identity_key.sql) -#}
  {%- for pair in bloomery.delivered_keys(entity) -%}
    {%- do cols.append(q(pair[0]) ~ ' as ' ~ q(pair[1])) -%}
  {%- endfor -%}
  {%- if entity.metadata -%}
    {%- for m in bloomery.vocabulary().metadata %}{% do cols.append(q(m)) %}{% endfor -%}
    {%- do cols.append(q('_bloomery_content')) -%}
    {#- the source row a deduped row lost its key to (the ledger records it) -#}
    {#- (a type 2 delivery newer than the current version lost to its own source row's newest) -#}
    {%- set winner = ('case when ' ~ q('_bloomery_rank') ~ ' < ' ~ q('_bloomery_current_rank') ~ ' then ' ~ q('_source_row_id')
                      ~ ' else ' ~ q('_bloomery_current') ~ ' end') if bloomery._versions(entity) else q('_bloomery_winner') -%}
    {%- do cols.append('case when ' ~ route ~ " = 'deduped' then " ~ winner ~ ' end as ' ~ q('_bloomery_winner')) -%}
  {%- endif -%}
  {%- if entity.quarantine and entity.mappings | length > 1 -%}
    {%- set payload = ['case ' ~ q('_bloomery_mapping')] -%}
    {%- for m in entity.mappings -%}
      {%- do payload.append('when ' ~ bloomery.string_literal(m.mapping) ~ ' then ' ~ bloomery.json_object(m.raw_columns, '', '_bloomery_raw__')) -%}
    {%- endfor -%}
    {%- do cols.append('case when ' ~ route ~ " = 'quarantine' then " ~ payload | join(' ') ~ ' end end as ' ~ q('_bloomery_raw')) -%}
  {%- elif entity.quarantine -%}
    {%- do cols.append('case when ' ~ route ~ " = 'quarantine' then " ~ bloomery.json_object(entity.mappings[0].raw_columns, '', '_bloomery_raw__') ~ ' end as ' ~ q('_bloomery_raw')) -%}
  {%- endif -%}
  {{ cols | join(',\n  ') }}
{%- endmacro %}
