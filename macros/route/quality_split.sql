{#- `<entity>__staged`: one row per candidate bronze row of this run, judged once.

    extract -> transform -> dedupe -> field rules -> row rules -> route, in that fixed order.
    Every survivor of dedupe carries `_quality_flags` (every rule it fired, sorted) and a route:
    'keep' (the entity), 'quarantine' (diverted to the reject table), 'held' (a delivery an
    unresolved reject row already holds: it stays there, whatever it would be judged now) or
    'deduped' (lost to a better row of its key, named in `_bloomery_winner`). The entity, the reject
    table, the ledger, the audits and the mart all read these verdicts, so no rule is evaluated
    twice.

    Incremental runs: the batch is the bronze deliveries the ledger (`<entity>__ledger`) has not
    recorded as judged (see `_in_batch`). Every bronze row of a key the batch touches is re-judged
    with it, so the winner of each touched key is exactly the one a full refresh would pick.

    entity    the resolved entity (compiler output)
    sources   {bronze relation name: relation}; replay passes the reject rows rebuilt as bronze
    parents   {parent entity name: relation} for referential rules
    batch     false to judge every source row (replay), true for a model's build -#}
{% macro quality_split(entity, sources, parents={}, batch=true) -%}
  {{ return(adapter.dispatch('quality_split', 'bloomery')(entity, sources, parents, batch)) }}
{%- endmacro %}

{% macro default__quality_split(entity, sources, parents, batch) -%}
{%- do bloomery.assert_bronze_columns(entity, sources) -%}
{%- set q = adapter.quote -%}
{%- set key = entity.key -%}
{%- set state = bloomery._batch_state(entity) if batch else none -%}
{%- set held = bloomery._held_rejects(entity, batch) -%}
{%- set rules = entity.rules -%}
{%- set unique_rules = rules | selectattr('rule', 'equalto', 'unique') | list %}
{#- Without `unique` rules a batch is decided on the bronze row's metadata and key alone, so it is
    picked from bronze first and only its rows are transformed: an incremental run then costs its
    batch, not the whole history. A `unique` verdict needs the transformed values of other rows. -#}
{%- set narrow = state is not none and not unique_rules %}
{#- A merged entity unions its mappings' rows; two bronze relations may reuse a `_source_row_id`,
    so a row is identified by (bronze relation, `_source_row_id`) there. -#}
{%- set merged = entity.mappings | length > 1 %}
{#- Dedupe ranks the bronze rows as they arrive, before any value is transformed: the window then
    sorts the few bronze columns the mapping reads instead of every typed value and cast marker
    (at 10M rows this halves the sort). A merged entity ranks after the transforms: its rows come
    from several relations, and only the typed key is common to them. A batch that re-judges rows
    sharing a `unique` value picks its candidates from typed values, so there the rank follows
    that choice. -#}
{%- set early = entity.dedupe and entity.mappings | length == 1 and (state is none or narrow) %}
with
{%- if state is not none %}
open_loads as (
  {%- set bronze = [] %}
  {%- for mapping in entity.mappings %}{% do bronze.append([mapping.source, sources[mapping.source]]) %}{% endfor %}
  {{ bloomery.open_loads(bronze, state.ledger) }}
),
{#- the ledger's deliveries of those loads: the batch is matched against these, not the whole ledger #}
judged_open as (
  select l.{{ q('source_relation') }}, l.{{ q('_source_row_id') }}, l.{{ q('_load_id') }}, l.{{ q('_ingested_at') }},
    {% if state.content %}l.{{ q('content_hash') }}{% else %}cast(null as {{ bloomery.type_name({'name': 'string'}) }}){% endif %} as {{ q('content_hash') }}
  from {{ state.ledger }} as l
  where exists (select 1 from open_loads as o
                where o.{{ q('source_relation') }} = l.{{ q('source_relation') }} and o.{{ q('_load_id') }} = l.{{ q('_load_id') }})
),
{#- identities bronze holds twice in an open load: judged again with every copy, so the
    ingestion-metadata audit compares their contents (a loader reusing an identity), whatever the
    ledger recorded (a ledger from before `content_hash` holds none) #}
repeated_open as (
  {%- for mapping in entity.mappings %}
  select {{ bloomery.string_literal(mapping.source) }} as {{ q('source_relation') }}, b.{{ q('_source_row_id') }}, b.{{ q('_load_id') }}, b.{{ q('_ingested_at') }}
  from {{ sources[mapping.source] }} as b
  where exists (select 1 from open_loads as o
                where o.{{ q('source_relation') }} = {{ bloomery.string_literal(mapping.source) }} and o.{{ q('_load_id') }} = b.{{ q('_load_id') }})
  group by b.{{ q('_source_row_id') }}, b.{{ q('_load_id') }}, b.{{ q('_ingested_at') }}
  having count(*) > 1
  {%- if not loop.last %}
  union all
  {%- endif %}
  {%- endfor %}
),
{%- endif %}
{%- if narrow %}
{{ 'batch' if entity.dedupe else 'touching' }} as (
{%- for mapping in entity.mappings %}
  {%- set mapped = bloomery._mapped(mapping) %}
  select {{ q('_source_row_id') }} as {{ q('_bloomery_touch__source_row_id') }}
  {%- if merged %}, {{ bloomery.string_literal(mapping.source) }} as {{ q('_bloomery_touch__source') }}{% endif %}
  {%- for k in key %}, {{ bloomery._key_value(mapped, k, entity) }} as {{ q('_bloomery_touch__' ~ k) }}{% endfor %}
  from {{ sources[mapping.source] }} as b
  where {{ bloomery._in_batch(state, 'b.', bloomery.string_literal(mapping.source), bloomery.delivery_content(mapping, 'b.')) }}
  {%- if not loop.last %}
  union all
  {%- endif %}
{%- endfor %}
),
{%- if entity.dedupe %}
{#- The keys the batch touches: its rows' keys, and the key of every other delivery of their
    source rows. A source row re-delivered under another key touches both keys, so each key's
    winner is picked from all of its rows, as a full build picks it (from the batch's keys alone,
    an older delivery of the source row would win its old key against rows the batch never read). -#}
touching as (
  select * from batch
{%- for mapping in entity.mappings %}
  {%- set mapped = bloomery._mapped(mapping) %}
  union all
  select {{ q('_source_row_id') }}
  {%- if merged %}, {{ bloomery.string_literal(mapping.source) }}{% endif %}
  {%- for k in key %}, {{ bloomery._key_value(mapped, k, entity) }}{% endfor %}
  from {{ sources[mapping.source] }} as b
  where {{ q('_source_row_id') }} in (select {{ q('_bloomery_touch__source_row_id') }} from batch
    {%- if merged %} where {{ q('_bloomery_touch__source') }} = {{ bloomery.string_literal(mapping.source) }}{% endif %})
{%- endfor %}
),
{%- endif %}
{%- endif %}
{%- if early %}
{%- set mapping = entity.mappings[0] %}
{%- set mapped = bloomery._mapped(mapping) %}
{%- set read = mapping.read_columns + mapping.raw_columns + (bloomery.vocabulary().metadata if entity.metadata else []) %}
{#- case-sensitive: `$.ID` and `$.id` are two bronze columns -#}
{%- set read = read | unique(case_sensitive=true) | sort(case_sensitive=true) %}
{%- set order_values = bloomery._order_values(mapped, entity) %}
{%- set parsed = bloomery._dedupe_parsed(entity.dedupe.order, order_values) %}
arrived as (
  select
    {%- for c in read %}
    {{ q(c) }},
    {%- endfor %}
    {%- set window = bloomery._dedupe_window(bloomery._key_values(mapped, entity), entity.dedupe.order, order_values, parsed=parsed) %}
    row_number() {{ window }} as {{ q('_bloomery_rank') }},
    first_value({{ q('_source_row_id') }}) {{ window }} as {{ q('_bloomery_winner') }}
  {%- if parsed %}
  {#- the order's timestamps, parsed once a row below the window (see _dedupe_parsed) #}
  from (
    select {% for c in read %}{{ q(c) }}, {% endfor %}
      {%- for i in parsed | sort %}{{ parsed[i][0] }} as {{ q(parsed[i][1]) }}{{ ", " if not loop.last }}{% endfor %}
    from {{ sources[mapping.source] }}
    {%- if narrow %}
    where {{ bloomery._narrow_filter(sources[mapping.source], mapped, entity, state, mapping.source) }}
    {%- endif %}
    {{ bloomery.evaluate_once() }}
  ) as {{ q('_bloomery_arriving') }}
  {%- else %}
  from {{ sources[mapping.source] }}
  {%- if narrow %}
  where {{ bloomery._narrow_filter(sources[mapping.source], mapped, entity, state, mapping.source) }}
  {%- endif %}
  {%- endif %}
),
{%- endif %}
{%- set raw_union = [] %}
{%- for mapping in entity.mappings %}{% for c in mapping.raw_columns %}{% if c not in raw_union %}{% do raw_union.append(c) %}{% endif %}{% endfor %}{% endfor %}
typed as (
{%- for mapping in entity.mappings %}
  {%- set mapped = bloomery._mapped(mapping) %}
  {#- A column whose transform chain ends with a coercion (a cast, a parse, arithmetic) has that
      step's failure marker tested on the computed value, `<input> is not null and <value> is
      null`, in a query over the one that computes it: written over the bronze row, the marker
      repeated the cast (PostgreSQL's guarded timestamp parse among them, about 1.2 s of CPU a
      million rows; docs/performance.md). The earlier steps' markers stay as they are. -#}
  {%- set values = {} %}
  {%- set split = [] %}
  {%- for col in entity.columns if col.name in mapped %}
    {%- set v = bloomery.column_value(mapped[col.name], entity.quality) %}
    {%- do values.update({col.name: v}) %}
    {%- if entity.quality and v.last_input is not none %}{% do split.append(col.name) %}{% endif %}
  {%- endfor %}
  {%- if split %}
  select
    {{ q('_bloomery_mapping') }}, {{ q('_bloomery_source') }},
  {%- if entity.quarantine %}
    {% for c in (raw_union | sort(case_sensitive=true) if merged else mapping.raw_columns) %}{{ q('_bloomery_raw__' ~ c) }}, {% endfor %}
  {%- endif %}
  {%- if entity.metadata %}
    {% for m in bloomery.vocabulary().metadata %}{{ q(m) }}, {% endfor %}{{ q('_bloomery_content') }},
  {%- endif %}
  {%- for col in entity.columns %}
    {%- set marker = q('_bloomery_cast_failed__' ~ col.name) %}
    {%- if col.name in split %}
    {%- set last = q('_bloomery_present__' ~ col.name) ~ ' and ' ~ q(col.name) ~ ' is null' %}
    {{ q(col.name) }},
    {% if values[col.name].failures | length > 1 %}({{ marker }} or ({{ last }})){% else %}({{ last }}){% endif %} as {{ marker }}{{ "," if not loop.last }}
    {%- else %}
    {{ q(col.name) }}, {{ marker }}{{ "," if not loop.last }}
    {%- endif %}
  {%- endfor %}
  {%- if early %},
    {{ q('_bloomery_rank') }}, {{ q('_bloomery_winner') }}
  {%- endif %}
  from (
  {%- endif %}
  select
    {{ bloomery.string_literal(mapping.mapping) }} as {{ q('_bloomery_mapping') }},
    {{ bloomery.string_literal(mapping.source) }} as {{ q('_bloomery_source') }},
  {%- if entity.quarantine and merged %}
  {#- the branches of the union carry every mapping's payload columns, as text (two relations
      may type one column differently; the mapping reads it as text anyway) -#}
  {%- for c in raw_union | sort(case_sensitive=true) %}
    {% if c in mapping.raw_columns %}{{ bloomery.source_value(c, none) }}{% else %}cast(null as {{ bloomery.type_name({'name': 'string'}) }}){% endif %} as {{ q('_bloomery_raw__' ~ c) }},
  {%- endfor %}
  {%- elif entity.quarantine %}
  {%- for c in mapping.raw_columns %}
    {{ q(c) }} as {{ q('_bloomery_raw__' ~ c) }},
  {%- endfor %}
  {%- endif %}
  {%- if entity.metadata %}
    {% for m in bloomery.vocabulary().metadata %}{{ q(m) }}, {% endfor %}
    {{ bloomery.delivery_content(mapping) }} as {{ q('_bloomery_content') }},
  {%- endif %}
  {%- for col in entity.columns %}
    {%- if col.name in split %}
    {%- set v = values[col.name] %}
    {{ v.value }} as {{ q(col.name) }},
    {%- if v.failures | length > 1 %}
    ({{ v.failures[:-1] | join(' or ') }}) as {{ q('_bloomery_cast_failed__' ~ col.name) }},
    {%- endif %}
    ({{ v.last_input }} is not null) as {{ q('_bloomery_present__' ~ col.name) }}{{ "," if not loop.last }}
    {%- elif col.name in mapped %}
    {%- set v = values[col.name] %}
    {{ v.value }} as {{ q(col.name) }},
    {{ ('(' ~ (v.failures | join(' or ')) ~ ')') if (v.failures and entity.quality) else 'false' }} as {{ q('_bloomery_cast_failed__' ~ col.name) }}{{ "," if not loop.last }}
    {%- else %}
    cast(null as {{ bloomery.type_name(col.type) }}) as {{ q(col.name) }},
    false as {{ q('_bloomery_cast_failed__' ~ col.name) }}{{ "," if not loop.last }}
    {%- endif %}
  {%- endfor %}
  {%- if early %},
    {{ q('_bloomery_rank') }}, {{ q('_bloomery_winner') }}
  from arrived
  {%- else %}
  from {{ sources[mapping.source] }}
  {%- if narrow %}
  where {{ bloomery._narrow_filter(sources[mapping.source], mapped, entity, state, mapping.source) }}
  {%- endif %}
  {%- endif %}
  {%- if split %}
  {#- the values computed once a row: the markers above read them #}
  {{ bloomery.evaluate_once() }}
  ) as {{ q('_bloomery_values') }}
  {%- endif %}
  {%- if not loop.last %}
  union all
  {%- endif %}
{%- endfor %}
  {{ bloomery.evaluate_once() }}
),
{%- if state is not none and not narrow %}
{#- A `unique` verdict depends on other keys' rows: a batch value touches every row sharing it. -#}
touching as (
  select * from typed where {{ bloomery._in_batch(state, 'typed.', 'typed.' ~ q('_bloomery_source'), 'typed.' ~ q('_bloomery_content')) }}
  {%- for r in unique_rules %}
  union all
  select * from typed
  where exists (
    select 1 from typed as u
    where {{ bloomery._in_batch(state, 'u.', 'u.' ~ q('_bloomery_source'), 'u.' ~ q('_bloomery_content')) }} and u.{{ q(r.column) }} = typed.{{ q(r.column) }}
    {%- set theirs = bloomery.unique_slice(r, 'u.') %}
    {%- for mine in bloomery.unique_slice(r, 'typed.') %} and {{ theirs[loop.index0] }} is not distinct from {{ mine }}{% endfor %}
  )
  {%- endfor %}
),
{%- set same_row -%}
  t.{{ q('_source_row_id') }} = typed.{{ q('_source_row_id') }}{% if merged %} and t.{{ q('_bloomery_source') }} = typed.{{ q('_bloomery_source') }}{% endif %}
{%- endset %}
{%- if entity.dedupe %}
{#- the keys of the touched rows and of every other delivery of their source rows (see the
    narrow batch's `touching`) -#}
touched_keys as (
  select {% for k in key %}{{ q(k) }}{{ ", " if not loop.last }}{% endfor %} from touching
  union all
  select {% for k in key %}{{ q(k) }}{{ ", " if not loop.last }}{% endfor %} from typed
  where exists (select 1 from touching as t where {{ same_row }})
),
{%- endif %}
{%- endif %}
candidates as (
  select * from typed
  {%- if state is not none and not narrow %}
  where {{ bloomery._in_batch(state, 'typed.', 'typed.' ~ q('_bloomery_source'), 'typed.' ~ q('_bloomery_content')) }}
     or exists (select 1 from touching as t where {{ same_row }})
  {%- if entity.dedupe %}
     or exists (
       select 1 from touched_keys as b
       where {% for k in key %}b.{{ q(k) }} = typed.{{ q(k) }}{{ " and " if not loop.last }}{% endfor %}
     )
  {%- endif %}
  {%- endif %}
),
ranked as (
  select
    candidates.*
  {%- if early %}
  {%- elif entity.dedupe %},
    {%- set keys, order = [], [] -%}
    {%- for k in key %}{% do keys.append(q(k)) %}{% endfor -%}
    {%- for o in entity.dedupe.order %}{% do order.append(q(o.column)) %}{% endfor %}
    {%- set parsed = bloomery._dedupe_parsed(entity.dedupe.order, order) %}
    {%- set window = bloomery._dedupe_window(keys, entity.dedupe.order, order, q('_bloomery_source') if merged else none, parsed) %}
    row_number() {{ window }} as {{ q('_bloomery_rank') }}
    {%- if entity.metadata %},
    first_value({{ q('_source_row_id') }}) {{ window }} as {{ q('_bloomery_winner') }}
    {%- endif %}
  {%- elif entity.metadata %},
    {#- Without dedupe two rows of a key are a fault (`<entity>_key_unique`), but two deliveries
        of one source row under one key are a re-delivery: the latest (dedupe's order on the
        metadata) replaces the earlier ones, which are recorded as having lost to their own
        source row. A quarantined row corrected at the source leaves the reject table so. -#}
    {%- set order = [{'column': '_ingested_at', 'metadata': true}, {'column': '_load_id', 'metadata': true}] %}
    case when {{ q('_source_row_id') }} is null then 1 else row_number() over (
      partition by {{ q('_bloomery_source') }}, {{ q('_source_row_id') }}{% for k in key %}, {{ q(k) }}{% endfor %}
      order by {% for t in bloomery._dedupe_order_terms(order, [q('_ingested_at'), q('_load_id')]) %}{{ t }}, {% endfor %}{{ q('_bloomery_content') }} desc
    ) end as {{ q('_bloomery_rank') }},
    {{ q('_source_row_id') }} as {{ q('_bloomery_winner') }}
  {%- else %},
    1 as {{ q('_bloomery_rank') }}
  {%- endif %}
  {%- if not early and entity.dedupe and parsed %}
  {#- the order's timestamps, parsed once a row below the window (see _dedupe_parsed) #}
  from (
    select candidates.*, {% for i in parsed | sort %}{{ parsed[i][0] }} as {{ q(parsed[i][1]) }}{{ ", " if not loop.last }}{% endfor %}
    from candidates
    {{ bloomery.evaluate_once() }}
  ) as candidates
  {%- else %}
  from candidates
  {%- endif %}
),
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

{#- The entity key's values and dedupe's order values, computed from a mapping's bronze row. -#}
{% macro _key_values(mapped, entity) -%}
  {%- set out = [] -%}
  {%- for k in entity.key -%}{%- do out.append(bloomery._key_value(mapped, k, entity) | trim) -%}{%- endfor -%}
  {{ return(out) }}
{%- endmacro %}

{% macro _order_values(mapped, entity) -%}
  {%- set out = [] -%}
  {%- for o in entity.dedupe.order -%}
    {%- do out.append(adapter.quote(o.column) if o.metadata else bloomery._key_value(mapped, o.column, entity) | trim) -%}
  {%- endfor -%}
  {{ return(out) }}
{%- endmacro %}

{#- An incremental batch's rows, read from a mapping's bronze when its verdicts need no `unique`
    rule: a batch row with a source row id is in `touching` already, and a row without one is
    always in the batch (it has no identity the ledger could hold), so this scan does not probe
    the ledger again. -#}
{% macro _narrow_filter(relation, mapped, entity, state, source=none) -%}
  {%- set q = adapter.quote -%}
  {%- set conditions = [q('_source_row_id') ~ ' is null'] -%}
  {%- set by_row_id -%}
  {{ q('_source_row_id') }} in (select {{ q('_bloomery_touch__source_row_id') }} from touching
       {%- if entity.mappings | length > 1 %} where {{ q('_bloomery_touch__source') }} = {{ bloomery.string_literal(source) }}{% endif %})
  {%- endset -%}
  {%- do conditions.append(by_row_id) -%}
  {%- if entity.dedupe -%}
  {%- set by_key -%}
  exists (
       select 1 from touching as b
       where {% for k in entity.key %}b.{{ q('_bloomery_touch__' ~ k) }} = {{ bloomery._key_value(mapped, k, entity) }}{{ " and " if not loop.last }}{% endfor %}
     )
  {%- endset -%}
  {%- do conditions.append(by_key) -%}
  {%- endif -%}
  {{ bloomery.rows_where(relation, conditions) }}
{%- endmacro %}

{#- A mapping's columns by entity column name. -#}
{% macro _mapped(mapping) -%}
  {%- set mapped = {} -%}
  {%- for c in mapping.columns %}{%- do mapped.update({c.name: c}) -%}{%- endfor -%}
  {{ return(mapped) }}
{%- endmacro %}

{#- A key column's value as `typed` computes it, from a mapping's bronze row. -#}
{% macro _key_value(mapped, name, entity) -%}
  {%- if name in mapped -%}
    {{ bloomery.column_value(mapped[name], entity.quality).value }}
  {%- else -%}
    {%- set col = entity.columns | selectattr('name', 'equalto', name) | first -%}
    cast(null as {{ bloomery.type_name(col.type) }})
  {%- endif -%}
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

{#- The parent keys a referential rule matches leave out the Unknown member row. Only a
    single-column reference tests it: the member row holds '__unknown__' in one column and NULL
    in the others, which the `is not null` tests of a composite reference drop already. -#}
{% macro _not_unknown_member(rule, q) -%}
  {%- if rule.pairs | length == 1 -%}{{ bloomery.not_the_unknown_member(q(rule.pairs[0][1])) }}{%- else -%}true{%- endif -%}
{%- endmacro %}

{#- A bronze row of this run's batch: a delivery the ledger has not recorded as judged, matched by
    identity (bronze relation, `_source_row_id`, `_load_id`, `_ingested_at`), never by a
    timestamp: a late part of a judged load, or a retried load with older timestamps, is judged
    like any other delivery. Only the rows of an open load are matched row by row (`_open_loads`).
    A row with a NULL in its identity matches nothing, so it is always in the batch, where the
    ingestion-metadata audit stops the run. A judged identity arriving with other content than the
    ledger recorded (`content`, see `delivery_content`) is in the batch too, so the audit sees it
    (a loader reusing an identity) rather than the batch passing it over as judged. `prefix`
    qualifies the bronze row's columns (the subqueries read relations with the same column names);
    `source` is the SQL of its bronze relation's name. -#}
{% macro _in_batch(state, prefix, source, content) -%}
  {%- set q = adapter.quote -%}
  ({{ prefix }}{{ q('_load_id') }} is null
   or (exists (select 1 from open_loads as o
               where o.{{ q('source_relation') }} = {{ source }} and o.{{ q('_load_id') }} = {{ prefix }}{{ q('_load_id') }})
       and not exists (
         select 1 from judged_open as l
         where l.{{ q('_source_row_id') }} = {{ prefix }}{{ q('_source_row_id') }}
           and l.{{ q('_load_id') }} = {{ prefix }}{{ q('_load_id') }}
           and l.{{ q('_ingested_at') }} = {{ prefix }}{{ q('_ingested_at') }}
           and l.{{ q('source_relation') }} = {{ source }}
           {%- if state.content %}
           and (l.{{ q('content_hash') }} is null or l.{{ q('content_hash') }} = {{ content }})
           {%- endif %}
       )
       or exists (
         select 1 from repeated_open as r
         where r.{{ q('_source_row_id') }} = {{ prefix }}{{ q('_source_row_id') }}
           and r.{{ q('_load_id') }} = {{ prefix }}{{ q('_load_id') }}
           and r.{{ q('_ingested_at') }} = {{ prefix }}{{ q('_ingested_at') }}
           and r.{{ q('source_relation') }} = {{ source }}
       )))
{%- endmacro %}

{#- The ledger an incremental run reads, or none when this build judges all of bronze: a `full`
    entity, a full refresh, or no ledger yet (the first build, or a project from before the
    ledger). The ledger commits after the entity and its reject table, so a run stopped before it
    leaves its batch unrecorded and the next run judges it again (re-judging is idempotent). -#}
{% macro _batch_state(entity) -%}
  {%- if not execute or not entity.metadata or flags.FULL_REFRESH
        or entity.get('materialization', 'incremental_by_key') == 'full' -%}{{ return(none) }}{%- endif -%}
  {%- set ledger = adapter.get_relation(database=this.database, schema=this.schema, identifier=entity.entity ~ '__ledger') -%}
  {%- set published = adapter.get_relation(database=this.database, schema=this.schema, identifier=entity.entity) -%}
  {%- if ledger is none or published is none -%}{{ return(none) }}{%- endif -%}
  {#- a ledger from before `content_hash` gets it in its own pre-hook, after this model ran -#}
  {%- set content = 'content_hash' in adapter.get_columns_in_relation(ledger) | map(attribute='name') | map('lower') | list -%}
  {{ return({'ledger': ledger, 'content': content}) }}
{%- endmacro %}

{#- The unresolved reject rows a build holds, or none (replay, or no reject table yet). A bronze
    delivery that was diverted stays diverted until replay, a re-delivery of its source row, or a
    newer delivery of its key: an ordinary build that re-reads it (a full entity, or a key touched
    by an older delivery) must not admit it on a verdict that changed since (a parent that
    arrived, for one), or whether it waits for replay would depend on when it was re-read.
    A `--full-refresh` is the deliberate exception: it restates history under the current spec
    (the backfill `plan` names after a rule is relaxed), so it judges every delivery afresh. -#}
{% macro _held_rejects(entity, batch) -%}
  {%- if not execute or not batch or not entity.quarantine or not entity.metadata or flags.FULL_REFRESH -%}{{ return(none) }}{%- endif -%}
  {{ return(adapter.get_relation(database=this.database, schema=this.schema, identifier=entity.entity ~ '__reject')) }}
{%- endmacro %}
