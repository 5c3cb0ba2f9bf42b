{#- `dbt run-operation bloomery.replay --args '{entity: order}'`

    Re-judges the entity's unresolved rejects with the CURRENT mapping and rules, through the
    same `quality_split` a normal run uses (the reject rows' `raw` payload is rebuilt as the
    bronze row it came from). Then, per key, the pipeline's dedupe order decides between the
    incumbent entity row and every candidate:
      - a candidate that passes and wins its key is admitted (merged into the entity by key)
        and its reject row gets `resolved_at`;
      - a candidate that passes but lost its key to a better row is marked `(superseded)` and
        resolved too: it is accounted for as deduped;
      - a candidate that still fails keeps its reject row, `failed_rules` re-derived, so the
        reject table never describes a spec nobody runs;
      - on an entity without dedupe, a passing candidate whose key another source row holds (in the
        entity, or as another passing candidate) stays quarantined too, `(source_collision)` (another
        bronze relation's row) or `(key_unique)` (its own relation's) first in its `failed_rules`:
        nothing decides which row is the key's (the build would stop on that audit).
    `last_seen` is never touched and nothing is deleted from the reject table. A replay with
    nothing to admit and nothing to re-stamp changes no row. Returns the counts it logs.

    A type 2 entity's history belongs to its dbt snapshot, whose validity columns no merge may
    fill: there, replay writes each passing row back to bronze as a new delivery (its original
    `_source_row_id`, `_load_id = '__replay__'`), and the next `dbt build` admits it and resolves
    its reject like any re-delivery.

    A merged entity's reject rows come from several mappings: each row is rebuilt as a row of the
    bronze relation it came from and re-judged by the mapping that produced it (its `mapping`),
    and is identified by (bronze relation, `_source_row_id`), since two relations may reuse an id. -#}
{% macro replay(entity) -%}
  {{ return(adapter.dispatch('replay', 'bloomery')(entity)) }}
{%- endmacro %}

{% macro default__replay(entity) -%}
  {%- if not execute -%}{{ return({}) }}{%- endif -%}
  {#- a run-operation runs no on-run-start hook: the engine check is asked for here -#}
  {%- do bloomery.assert_engine_supported() -%}
  {%- set q = adapter.quote -%}
  {%- set node = bloomery._node(entity ~ '__reject') -%}
  {%- if node is none -%}
    {{ exceptions.raise_compiler_error("bloomery.replay: no reject table for entity '" ~ entity ~ "'. Replay works on entities with a `quarantine:` block; run `bloomery compile` and `dbt build` first.") }}
  {%- endif -%}
  {%- set ir = node.config.meta.bloomery -%}
  {%- set reject = bloomery._relation(entity ~ '__reject') -%}
  {%- set kept = bloomery._relation(entity) -%}
  {%- if reject is none or kept is none -%}
    {{ exceptions.raise_compiler_error("bloomery.replay: " ~ entity ~ " has not been built yet; run `dbt build` first.") }}
  {%- endif -%}
  {#- before anything this replay writes (it stamps last_evaluated_at) -#}
  {%- set resolved_by_builds = bloomery._resolved_by_builds(reject) -%}
  {%- set parents = {} -%}
  {%- for r in ir.rules if r.rule == 'referential' -%}{%- do parents.update({r.parent: bloomery._relation(r.parent)}) -%}{%- endfor -%}
  {%- set merged = ir.mappings | length > 1 -%}
  {%- set now = bloomery.run_timestamp() -%}
  {#- each mapping reads its own reject rows, rebuilt as rows of its bronze relation -#}
  {%- set sources = {} -%}
  {%- for mapping in ir.mappings -%}
  {%- set source -%}
  (select
    {%- for c in mapping.raw_columns %}
    {{ bloomery.source_value(c, none, 'raw') }} as {{ q(c) }},
    {%- endfor %}
    {%- for m in bloomery.vocabulary().metadata if m not in mapping.raw_columns %}
    {{ q(m) }},
    {%- endfor %}
    {{ q('reject_id') }} as {{ q('_bloomery_reject_id') }}
  from {{ reject }}
  where {{ q('resolved_at') }} is null and {{ q('mapping') }} = {{ bloomery.string_literal(mapping.mapping) }}) as {{ q('_bloomery_replay_source') }}
  {%- endset -%}
  {%- do sources.update({mapping.source: source}) -%}
  {%- endfor -%}
  {#- every candidate is judged; the contest against the incumbent is below -#}
  {%- set judged_ir = {} -%}{%- do judged_ir.update(ir) -%}{%- do judged_ir.update({'dedupe': none}) -%}
  {%- set judged = bloomery.scratch_relation('bloomery_replay_judged') -%}
  {%- set outcome = bloomery.scratch_relation('bloomery_replay_outcome') -%}
  {%- call statement('replay_judged') -%}
    {{ bloomery.create_scratch_table(judged, bloomery.quality_split(judged_ir, sources, parents, batch=false)) }}
  {%- endcall -%}
  {%- if ir.scd == 'type2' -%}
    {{ return(bloomery._redeliver(entity, ir, judged, reject, resolved_by_builds)) }}
  {%- endif -%}
  {#- the columns that identify a row: the delivered key where unknown_member rewrites a key column -#}
  {%- set key = bloomery.identity_key(ir) -%}
  {#- Without dedupe nothing decides between two rows of one key (the build stops on `key_unique`,
      or on `source_collision` when two bronze relations deliver it): a passing candidate whose key
      the entity holds from another source row, or another passing candidate claims, stays
      quarantined, with `(source_collision)` (another bronze relation holds it) or `(key_unique)`
      (another source row of its own relation) first in its failed_rules. -#}
  {%- set collide = not ir.dedupe -%}
  {%- set incumbent_source = 'i.' ~ q('_source') if merged else bloomery.string_literal(ir.mappings[0].source) -%}
  {%- set judged_cols = adapter.get_columns_in_relation(judged) | map(attribute='name') | reject('equalto', '_quality_flags') | list -%}
  {%- set outcome_sql -%}
    with contest as (
      select {% for k in key %}{{ q(k) }}, {% endfor %}{% if ir.dedupe %}{% for o in ir.dedupe.order %}{{ q(o.column) }}, {% endfor %}{% endif %}
             {{ q('_source_row_id') }}, {{ q('_bloomery_source') }}, 'candidate' as {{ q('_bloomery_side') }}
      from {{ judged }}
      {%- if ir.dedupe %}
      union all
      select {% for k in key %}i.{{ q(k) }}, {% endfor %}{% for o in ir.dedupe.order %}i.{{ q(o.column) }}, {% endfor %}
             i.{{ q('_source_row_id') }}, {% if merged %}i.{{ q('_source') }}{% else %}{{ bloomery.string_literal(ir.mappings[0].source) }}{% endif %}, 'incumbent'
      from {{ kept }} as i
      where exists (select 1 from {{ judged }} as j where {% for k in key %}j.{{ q(k) }} = i.{{ q(k) }}{{ " and " if not loop.last }}{% endfor %})
      {%- endif %}
    ),
    ranked as (
      select contest.*,
      {%- if ir.dedupe %}
        {#- the split's own rank: `_ingested_at` by the timestamp it casts to, as in the pipeline -#}
        {%- set keys, values = [], [] -%}
        {%- for k in key %}{% do keys.append(q(k)) %}{% endfor -%}
        {%- for o in ir.dedupe.order %}{% do values.append(q(o.column)) %}{% endfor %}
        {{ bloomery._dedupe_rank(keys, ir.dedupe.order, values, q('_bloomery_source') if merged else none) }} as {{ q('_bloomery_contest_rank') }}
      {%- else %}
        1 as {{ q('_bloomery_contest_rank') }}
      {%- endif %}
      from contest
    ),
    decided as (
      select j.*,
        case
          when j.{{ q('_bloomery_route') }} = 'quarantine' then 'failing'
          {%- if collide and merged %}
          when {{ bloomery._replay_key_taken(kept, judged, key, incumbent_source, 'false') }} then 'source_collision'
          {%- endif %}
          {%- if collide %}
          when {{ bloomery._replay_key_taken(kept, judged, key, incumbent_source, 'true') }} then 'key_unique'
          {%- endif %}
          when r.{{ q('_bloomery_contest_rank') }} = 1 then 'admit'
          else 'superseded'
        end as {{ q('_bloomery_verdict') }}
      from {{ judged }} as j
      join ranked as r
        on r.{{ q('_bloomery_side') }} = 'candidate' and r.{{ q('_source_row_id') }} = j.{{ q('_source_row_id') }}
       and r.{{ q('_bloomery_source') }} = j.{{ q('_bloomery_source') }}
    )
    select {% for c in judged_cols %}{{ q(c) }}, {% endfor %}
      {#- a collision is recorded with the audit it would fail, then the rules the row fires now
          (flag ones included); replay_apply knows it as one outcome, `collision` -#}
      case when {{ q('_bloomery_verdict') }} = 'source_collision'
        then {{ bloomery.flags_concat(bloomery.flag_list([['(source_collision)', 'true']]), q('_quality_flags')) }}
        when {{ q('_bloomery_verdict') }} = 'key_unique'
        then {{ bloomery.flags_concat(bloomery.flag_list([['(key_unique)', 'true']]), q('_quality_flags')) }}
        else {{ q('_quality_flags') }} end as {{ q('_quality_flags') }},
      case when {{ q('_bloomery_verdict') }} in ('source_collision', 'key_unique') then 'collision'
        else {{ q('_bloomery_verdict') }} end as {{ q('_bloomery_outcome') }}
    from decided
  {%- endset -%}
  {%- call statement('replay_outcome') -%}
    {{ bloomery.create_scratch_table(outcome, outcome_sql) }}
  {%- endcall -%}
  {%- do bloomery.replay_apply(ir, kept, reject, outcome, now) -%}
  {%- set counts = run_query('select ' ~ q('_bloomery_outcome') ~ ', count(*) from ' ~ outcome ~ ' group by 1') -%}
  {%- set report = {'entity': entity, 'admitted': 0, 'still_failing': 0, 'superseded': 0, 'resolved_by_builds': resolved_by_builds[0]} -%}
  {%- for row in counts.rows -%}
    {%- set name = {'admit': 'admitted', 'failing': 'still_failing', 'collision': 'still_failing', 'superseded': 'superseded'}[row[0]] -%}
    {%- do report.update({name: report[name] + row[1] | int}) -%}
  {%- endfor -%}
  {%- do run_query('drop table if exists ' ~ judged) -%}
  {%- do run_query('drop table if exists ' ~ outcome) -%}
  {#- run-operation leaves the transaction open; all of the above lands together or not at all -#}
  {%- do bloomery.end_transaction('replay_commit') -%}
  {{ log("bloomery.replay " ~ entity ~ ": " ~ report.admitted ~ " admitted, " ~ report.still_failing ~ " still failing, " ~ report.superseded ~ " superseded" ~ bloomery._resolved_by_builds_note(resolved_by_builds), info=true) }}
  {{ return(report) }}
{%- endmacro %}

{#- Still-failing rejects take the rules they fail now (`rows`: the re-judged rows, `failing`: the
    condition on them that says so); a row whose rules did not change is left untouched once it
    has been evaluated, so a replay with nothing new changes no row. A re-judged row is its reject
    row's when both name the same bronze relation and source row id. -#}
{% macro _restamp_failing(reject, rows, failing, now) -%}
  {%- set q = adapter.quote -%}
  {%- set same_row = 'o.' ~ q('_source_row_id') ~ ' = ' ~ reject ~ '.' ~ q('_source_row_id') ~ ' and o.' ~ q('_bloomery_source') ~ ' = ' ~ reject ~ '.' ~ q('source_relation') -%}
    update {{ reject }}
    set {{ q('last_evaluated_at') }} = {{ now }},
        {{ q('failed_rules') }} = (select o.{{ q('_quality_flags') }} from {{ rows }} as o where {{ same_row }})
    where {{ q('resolved_at') }} is null
      and exists (
        select 1 from {{ rows }} as o
        where o.{{ failing }} and {{ same_row }}
          and ({{ reject }}.{{ q('last_evaluated_at') }} is null or {{ bloomery.flags_text('o.' ~ q('_quality_flags')) }} <> {{ bloomery.flags_text(reject ~ '.' ~ q('failed_rules')) }})
      )
{%- endmacro %}

{#- Each passing row goes back to the bronze relation it came from (a merged entity's rows to
    their own, each with the columns its mapping reads). -#}
{% macro _redeliver(entity, ir, judged, reject, resolved_by_builds=[0, none]) -%}
  {%- set q = adapter.quote -%}
  {%- set s = bloomery.type_name({'name': 'string'}) -%}
  {%- set ns = namespace(redelivered=0) -%}
  {%- for mapping in ir.mappings -%}
  {%- set bronze = bloomery._bronze_relation(mapping.source) -%}
  {%- set columns = [] -%}
  {%- for c in mapping.raw_columns if c not in bloomery.vocabulary().metadata -%}{%- do columns.append(c) -%}{%- endfor -%}
  {%- set waiting -%}
    from {{ reject }} as r
    where r.{{ q('resolved_at') }} is null
      and r.{{ q('source_relation') }} = {{ bloomery.string_literal(mapping.source) }}
      and r.{{ q('_source_row_id') }} in (select {{ q('_source_row_id') }} from {{ judged }}
                                         where {{ q('_bloomery_route') }} = 'keep' and {{ q('_bloomery_source') }} = {{ bloomery.string_literal(mapping.source) }})
      {#- replaying twice before the next build delivers nothing twice -#}
      and not exists (select 1 from {{ bronze }} as b
                      where b.{{ q('_load_id') }} = {{ bloomery.string_literal(bloomery.vocabulary().replay_load) }} and b.{{ q('_source_row_id') }} = r.{{ q('_source_row_id') }})
  {%- endset -%}
  {%- set ns.redelivered = ns.redelivered + run_query('select count(*) ' ~ waiting).columns[0].values()[0] | int -%}
  {%- call statement('replay_redeliver') -%}
    insert into {{ bronze }} ({% for c in columns %}{{ q(c) }}, {% endfor %}{{ q('_load_id') }}, {{ q('_ingested_at') }}, {{ q('_source_row_id') }})
    select
      {%- for c in columns %}
      {{ bloomery.source_value(c, none, 'raw') }},
      {%- endfor %}
      {{ bloomery.string_literal(bloomery.vocabulary().replay_load) }},
      {{ bloomery.string_literal(run_started_at.strftime('%Y-%m-%d %H:%M:%S')) }},
      r.{{ q('_source_row_id') }}
    {{ waiting }}
  {%- endcall -%}
  {%- endfor -%}
  {%- call statement('replay_restamp') -%}
    {{ bloomery._restamp_failing(reject, judged, q('_bloomery_route') ~ " = 'quarantine'", bloomery.run_timestamp()) }}
  {%- endcall -%}
  {%- set failing = run_query('select count(*) from ' ~ judged ~ ' where ' ~ q('_bloomery_route') ~ " = 'quarantine'").columns[0].values()[0] | int -%}
  {%- set report = {'entity': entity, 'redelivered': ns.redelivered, 'still_failing': failing, 'resolved_by_builds': resolved_by_builds[0]} -%}
  {%- do run_query('drop table if exists ' ~ judged) -%}
  {%- do bloomery.end_transaction('replay_commit') -%}
  {{ log("bloomery.replay " ~ entity ~ " (type 2): " ~ report.redelivered ~ " re-delivered to bronze as _load_id '" ~ bloomery.vocabulary().replay_load ~ "' (admitted by the next dbt build), " ~ report.still_failing ~ " still failing" ~ bloomery._resolved_by_builds_note(resolved_by_builds), info=true) }}
  {{ return(report) }}
{%- endmacro %}

{% macro _bronze_relation(name) -%}
  {%- for node in graph.sources.values() if node.source_name == 'bronze' and node.name == name -%}
    {{ return(adapter.get_relation(database=node.database, schema=node.schema, identifier=node.identifier)) }}
  {%- endfor -%}
  {{ exceptions.raise_compiler_error("bloomery.replay: no bronze source '" ~ name ~ "'; run `bloomery compile` first.") }}
{%- endmacro %}

{#- Whether a replay candidate `j`'s key is held by another row: an entity row (`kept`, as `i`) or
    another passing candidate (`judged`, as `o`) of another source row. `any_relation`: 'true' for
    any other row, 'false' for another bronze relation's only. Keys compare as `key_unique` groups
    them, NULL parts alike; a key with a NULL part is looked up among the rows with one, so the
    common case stays an equi-join. -#}
{% macro _replay_key_taken(kept, judged, key, incumbent_source, any_relation) -%}
  {%- set q = adapter.quote -%}
  {%- set ns = namespace(out=[]) -%}
  {%- for side, relation, filter, source in [('i', kept, none, incumbent_source),
                                             ('o', judged, 'o.' ~ q('_bloomery_route') ~ " = 'keep'", 'o.' ~ q('_bloomery_source'))] -%}
    {%- set other -%}
      ({{ source }} <> j.{{ q('_bloomery_source') }}{% if any_relation == 'true' %} or {{ side }}.{{ q('_source_row_id') }} <> j.{{ q('_source_row_id') }}{% endif %})
    {%- endset -%}
    {%- set equal, same, j_null, s_null = [], [], [], [] -%}
    {%- for k in key -%}
      {%- do equal.append(side ~ '.' ~ q(k) ~ ' = j.' ~ q(k)) -%}
      {%- do same.append(side ~ '.' ~ q(k) ~ ' is not distinct from j.' ~ q(k)) -%}
      {%- do j_null.append('j.' ~ q(k) ~ ' is null') -%}
      {%- do s_null.append(side ~ '.' ~ q(k) ~ ' is null') -%}
    {%- endfor -%}
    {%- set where = ([filter] if filter else []) -%}
    {%- do ns.out.append('exists (select 1 from ' ~ relation ~ ' as ' ~ side ~ ' where ' ~ (where + equal + [other]) | join(' and ') ~ ')') -%}
    {%- do ns.out.append('((' ~ j_null | join(' or ') ~ ') and exists (select 1 from ' ~ relation ~ ' as ' ~ side ~ ' where '
                          ~ (where + ['(' ~ s_null | join(' or ') ~ ')'] + same + [other]) | join(' and ') ~ '))') -%}
  {%- endfor -%}
  ({{ ns.out | join('\n   or ') }})
{%- endmacro %}

{#- The held rows the latest build that resolved any resolved (a rebuild that keeps them now, or a
    newer delivery of their key, a type 2 replay's re-delivery included), unless a replay has
    re-judged rows since: a replay after a plan's backfill finds them gone from quarantine and says
    so, rather than reporting only `0 admitted`. A build stamps only `resolved_at`; a replay stamps
    `last_evaluated_at` on every row it re-judges (`resolved_at` too on those it admits), so a row
    resolved by a build is one whose two stamps differ. Returns [count, when]. -#}
{% macro _resolved_by_builds(reject) -%}
  {%- set q = adapter.quote -%}
  {%- set resolved, evaluated = q('resolved_at'), q('last_evaluated_at') -%}
  {%- set sql -%}
with built as (
  select {{ resolved }} as stamp from {{ reject }}
  where {{ resolved }} is not null and ({{ evaluated }} is null or {{ evaluated }} <> {{ resolved }})
),
latest as (select max(stamp) as stamp from built),
replayed as (select max({{ evaluated }}) as stamp from {{ reject }})
select count(*), max(l.stamp)
from built as b
cross join latest as l
cross join replayed as r
where b.stamp = l.stamp and (r.stamp is null or l.stamp > r.stamp)
  {%- endset -%}
  {%- set rows = run_query(sql).rows -%}
  {#- a render without a warehouse (the dialect checks) answers nothing -#}
  {%- if rows | length == 0 or rows[0] | length < 2 -%}{{ return([0, none]) }}{%- endif -%}
  {{ return([rows[0][0] | int, rows[0][1]]) }}
{%- endmacro %}

{% macro _resolved_by_builds_note(resolved) -%}
  {%- set n, when = resolved[0], resolved[1] -%}
  {%- if n == 0 -%}{{ return('') }}{%- endif -%}
  {#- the stamp is to the microsecond (run_timestamp); a reader wants the second -#}
  {%- set when = (when | string)[:19] -%}
  {{ return("; " ~ n ~ " held row" ~ ("s" if n != 1 else "") ~ " had been resolved by the dbt build of " ~ when
            ~ " (it keeps " ~ ("them" if n != 1 else "it") ~ " now, or a newer delivery of the key came)") }}
{%- endmacro %}
