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

{#- The staged query, one macro a stage (macros/stages/), in the order a row goes through them:
    stage_batch (the incremental batch), stage_extract (`arrived`), stage_transform (`typed`),
    stage_candidates, stage_dedupe (`ranked`), stage_judge (`joined`, `judged`) and stage_route
    (`versioned`, `routed`, the final select). Each renders its CTEs and the comma after them.
    What several stages depend on is decided here, once, and handed to each as `staging`:
    {entity, sources, parents, state (the ledger an incremental run reads, or none), held (the
    reject table holding deliveries, or none), unique_rules, narrow, merged, early}. -#}
{% macro default__quality_split(entity, sources, parents, batch) -%}
{%- do bloomery.assert_bronze_columns(entity, sources) -%}
{%- set state = bloomery._batch_state(entity) if batch else none -%}
{%- set held = bloomery._held_rejects(entity, batch) -%}
{%- set unique_rules = entity.rules | selectattr('rule', 'equalto', 'unique') | list %}
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
{%- set staging = {'entity': entity, 'sources': sources, 'parents': parents, 'state': state, 'held': held,
                   'unique_rules': unique_rules, 'narrow': narrow, 'merged': merged, 'early': early} %}
with
{{- bloomery.stage_batch(staging) }}
{{- bloomery.stage_extract(staging) }}
{{- bloomery.stage_transform(staging) }}
{{- bloomery.stage_candidates(staging) }}
{{- bloomery.stage_dedupe(staging) }}
{{- bloomery.stage_judge(staging) }}
{{- bloomery.stage_route(staging) }}
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

{#- A bronze row of this run's batch: a delivery the ledger has not recorded as judged, matched by
    identity (bronze relation, `_source_row_id`, `_load_id`, `_ingested_at`), never by a
    timestamp: a late part of a judged load, or a retried load with older timestamps, is judged
    like any other delivery. Only the rows of an open load are matched row by row (`_open_loads`),
    and a load bronze holds more rows of than the ledger recorded is judged whole (`grown`).
    A row with a NULL in its identity matches nothing, so it is always in the batch, where the
    ingestion-metadata audit stops the run. A judged identity arriving with other content than the
    ledger recorded (`content`, see `delivery_content`) is in the batch too, so the audit sees it
    (a loader reusing an identity) rather than the batch passing it over as judged. `prefix`
    qualifies the bronze row's columns (the subqueries read relations with the same column names);
    `source` is the SQL of its bronze relation's name. -#}
{% macro _in_batch(state, prefix, source, content) -%}
  {%- set q = adapter.quote -%}
  ({{ prefix }}{{ q('_load_id') }} is null
   or exists (select 1 from open_loads as o
              where o.{{ q('source_relation') }} = {{ source }} and o.{{ q('_load_id') }} = {{ prefix }}{{ q('_load_id') }} and o.{{ q('grown') }})
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
  {%- set ledger = bloomery._readable_ledger(this.database, this.schema, entity.entity) -%}
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
