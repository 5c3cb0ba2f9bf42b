{#- The reject table on Spark: rebuilt whole from a snapshot (see writes.sql). -#}

{% macro _spark_prev(relation) -%}
  {{ return(relation.incorporate(path={'identifier': relation.identifier ~ '__bloomery_prev'})) }}
{%- endmacro %}

{#- Pre-hook of the reject table: a copy of it as it was, for its own rebuild to read. -#}
{% macro spark_snapshot() -%}
  {%- if execute and is_incremental() -%}
    {%- set prev = bloomery._spark_prev(this) -%}
    {%- do run_query('drop table if exists ' ~ prev) -%}
    {%- do run_query('create table ' ~ prev ~ ' using parquet as select * from ' ~ this) -%}
  {%- endif -%}
{%- endmacro %}

{#- Pre-hook of the reject table: the deliveries of the rows the rebuild's retention filter drops
    are recorded 'expired' in the ledger, as `ledger_record_expired` does on other engines (the
    rows this run diverts or holds are spared, as there). -#}
{% macro spark_record_expired(retention_hours) -%}
  {%- if execute and is_incremental() -%}
    {#- `<entity>__reject` is built from `<entity>__staged` (a ref is not resolved yet where the hook is configured) -#}
    {%- set staged = this.incorporate(path={'identifier': this.identifier[:-('__reject' | length)] ~ '__staged'}) -%}
    {%- do bloomery._spark_expire_in_ledger(this, retention_hours, staged) -%}
  {%- endif -%}
{%- endmacro %}

{#- Rewrites where the ledger's verdicts are written (`ledger_verdicts`, if any) with the deliveries of the reject rows retention
    drops from `reject` marked 'expired'; the rows `staged` diverts or holds are spared. In a rest
    table, the delivery of a resolved one that has its entity row (replay admitted it) is left out
    instead, as `ledger_record_expired` does. -#}
{% macro _spark_expire_in_ledger(reject, retention_hours, staged=none) -%}
  {%- set name = reject.identifier[:-('__reject' | length)] -%}
  {%- set ledger = bloomery.ledger_verdicts(reject.database, reject.schema, name) -%}
  {%- if ledger is not none -%}
    {%- set q = adapter.quote -%}
    {%- set entity = adapter.get_relation(database=reject.database, schema=reject.schema, identifier=name) -%}
    {%- set rest = ledger.identifier == name ~ '__ledger_rest' and entity is not none -%}
    {%- set merged = rest and '_source' in adapter.get_columns_in_relation(entity) | map(attribute='name') | map('lower') | list -%}
    {#- the table's own columns, in its order (a rewrite is an insert by position) -#}
    {%- set cols = adapter.get_columns_in_relation(ledger) | map(attribute='name') | list -%}
    {%- set keep -%}
      select {% for c in cols %}{% if c == 'route' %}case when l.{{ q('route') }} = 'quarantine' and e.{{ q('_source_row_id') }} is not null then 'expired' else l.{{ q('route') }} end as {{ q('route') }}{% else %}l.{{ q(c) }}{% endif %}{{ ", " if not loop.last }}{% endfor %}
      from {{ ledger }} as l
      left join (
        select r.{{ q('source_relation') }}, r.{{ q('_source_row_id') }}, max(r.{{ q('resolved_at') }}) as {{ q('resolved_at') }} from {{ reject }} as r
        {%- if staged is not none %}
        left anti join (select {{ q('_source_row_id') }}, {{ q('_bloomery_source') }} from {{ staged }}
                        where {{ q('_bloomery_route') }} in ('quarantine', 'held')) as f
          on f.{{ q('_source_row_id') }} = r.{{ q('_source_row_id') }} and f.{{ q('_bloomery_source') }} = r.{{ q('source_relation') }}
        {%- endif %}
        where not ({{ bloomery._spark_retained(retention_hours) }})
        group by r.{{ q('source_relation') }}, r.{{ q('_source_row_id') }}
      ) as e on e.{{ q('_source_row_id') }} = l.{{ q('_source_row_id') }} and e.{{ q('source_relation') }} = l.{{ q('source_relation') }}
      {%- if rest %}
      left join (select distinct {{ q('_source_row_id') }}, {{ q('_load_id') }}, {{ q('_ingested_at') }}
                 {%- if merged %}, {{ q('_source') }}{% endif %} from {{ entity }}) as k
        on k.{{ q('_source_row_id') }} = l.{{ q('_source_row_id') }} and k.{{ q('_load_id') }} = l.{{ q('_load_id') }}
       and k.{{ q('_ingested_at') }} = l.{{ q('_ingested_at') }}{% if merged %} and k.{{ q('_source') }} = l.{{ q('source_relation') }}{% endif %}
      where not (l.{{ q('route') }} = 'quarantine' and e.{{ q('resolved_at') }} is not null and k.{{ q('_source_row_id') }} is not null)
      {%- endif %}
    {%- endset -%}
    {%- do bloomery._spark_rewrite(ledger, keep) -%}
  {%- endif -%}
{%- endmacro %}

{% macro spark_drop_snapshot() -%}
  {%- if execute -%}{%- do run_query('drop table if exists ' ~ bloomery._spark_prev(this)) -%}{%- endif -%}
{%- endmacro %}

{#- The whole reject table, rebuilt: this run's diverted rows (first_seen and last_evaluated_at
    carried over from the snapshot), then the snapshot's other rows with the resolve and redact
    post-hooks applied, less what retention purges (this run's own rows are spared, as on other engines). -#}
{% macro spark__reject_rows(entity, staged, sources) -%}
  {%- do config(incremental_strategy='insert_overwrite',
                pre_hook=['{{ bloomery.spark_snapshot() }}',
                          '{{ bloomery.spark_record_expired(' ~ (entity.quarantine.retention_hours | int) ~ ') }}'],
                post_hook=['{{ bloomery.spark_drop_snapshot() }}']) -%}
  {%- set q = adapter.quote -%}
  {%- set mapping = entity.mappings[0] -%}
  {#- a merged entity's rows are matched by (bronze relation, source row id) -#}
  {%- set merged = entity.mappings | length > 1 -%}
  {%- set prev = bloomery._spark_prev(this) if is_incremental() else none -%}
select * from (
  {{ bloomery._reject_select(entity, staged, prev) }}
) as fresh
{%- if prev is not none %}
union all
select * from (
  select
    {%- for c in bloomery._reject_columns() %}
    {%- if c == 'resolved_at' %}
    case when p.{{ q('resolved_at') }} is null
          {%- if not merged %}
          and p.{{ q('source_relation') }} = {{ bloomery.string_literal(mapping.source) }}
          {%- endif %}
          and st.diverted = 0 and rejudged.{{ q('_source_row_id') }} is not null
         then {{ bloomery.run_timestamp() }} else p.{{ q('resolved_at') }} end as {{ q('resolved_at') }}{{ "," if not loop.last }}
    {%- elif c == 'raw' and entity.quarantine.redact %}
    case when {{ bloomery.json_has_any_key('p.' ~ q('raw'), entity.quarantine.redact) }}
         then {{ bloomery.json_without_keys('p.' ~ q('raw'), entity.quarantine.redact) }} else p.{{ q('raw') }} end as {{ q('raw') }}{{ "," if not loop.last }}
    {%- else %}
    p.{{ q(c) }}{{ "," if not loop.last }}
    {%- endif %}
    {%- endfor %}
  from {{ prev }} as p
  left anti join (
    select {{ bloomery.entity_reject_id(entity) }} as {{ q('reject_id') }}
    from {{ staged }} where {{ q('_bloomery_route') }} = 'quarantine'
  ) as redelivered on redelivered.{{ q('reject_id') }} = p.{{ q('reject_id') }}
  left join (
    select {{ q('_source_row_id') }}{% if merged %}, {{ q('_bloomery_source') }}{% endif %}, max(case when {{ q('_bloomery_route') }} in ('quarantine', 'held') then 1 else 0 end) as diverted
    from {{ staged }} group by {{ q('_source_row_id') }}{% if merged %}, {{ q('_bloomery_source') }}{% endif %}
  ) as st on st.{{ q('_source_row_id') }} = p.{{ q('_source_row_id') }}
    {%- if merged %} and st.{{ q('_bloomery_source') }} = p.{{ q('source_relation') }}{% endif %}
  {#- the delivery the reject row records, judged again (see `default__resolve_rejects`) #}
  left join (
    select distinct {{ q('_source_row_id') }}, {{ q('_load_id') }}, {{ q('_ingested_at') }}, {{ q('_bloomery_source') }}
    from {{ staged }} where {{ q('_bloomery_route') }} not in ('quarantine', 'held')
  ) as rejudged
    on rejudged.{{ q('_source_row_id') }} = p.{{ q('_source_row_id') }} and rejudged.{{ q('_load_id') }} = p.{{ q('_load_id') }}
   and rejudged.{{ q('_ingested_at') }} = p.{{ q('_ingested_at') }} and rejudged.{{ q('_bloomery_source') }} = p.{{ q('source_relation') }}
) as earlier
where {{ bloomery._spark_retained(entity.quarantine.retention_hours) }}
   or {{ q('reject_id') }} in (select {{ bloomery.entity_reject_id(entity) }} from {{ staged }} where {{ q('_bloomery_route') }} = 'held')
{%- endif %}
{%- endmacro %}

{% macro _reject_columns() -%}
  {{ return(['reject_id', 'source_relation', 'mapping', 'mapping_version', 'failed_rules', 'key_values', 'raw']
            + bloomery.vocabulary().metadata + ['first_seen', 'last_seen', 'resolved_at', 'last_evaluated_at']) }}
{%- endmacro %}

{#- The rows retention keeps: not older than `retention_hours`, from last_seen or resolved_at. -#}
{% macro _spark_retained(retention_hours) -%}
  {%- set q = adapter.quote -%}
  {%- set cutoff = bloomery.clock() - modules.datetime.timedelta(hours=retention_hours) -%}
  not coalesce(coalesce({{ q('resolved_at') }}, {{ q('last_seen') }}) < cast({{ bloomery.string_literal(cutoff.strftime('%Y-%m-%d %H:%M:%S')) }} as timestamp), false)
{%- endmacro %}

{#- Folded into the reject table's rebuild. -#}
{% macro spark__resolve_rejects(source_relation, staged) -%}{%- endmacro %}

{#- As a post-hook (no relation) the reject rebuild has already purged; as a run-operation it
    rewrites the table and leaves no statement to run. -#}
{% macro spark__purge_expired(retention_hours, relation, fresh) -%}
  {%- if relation is not none and execute -%}
    {%- do bloomery._spark_expire_in_ledger(relation, retention_hours) -%}
    {%- do bloomery._spark_rewrite(relation, 'select * from ' ~ relation ~ ' where ' ~ bloomery._spark_retained(retention_hours), drops_only=true) -%}
  {%- endif -%}
{%- endmacro %}

{#- Folded into the parquet rebuild (spark__reject_rows); Databricks' Delta table takes the UPDATE. -#}
{% macro spark__redact_rejects(redact, relation) -%}{%- endmacro %}

{#- Spark (and Databricks): `raw` is JSON text. Through a variant map, so values keep their JSON
    types (a string map would turn 1 into "1" and an object into text). -#}
{% macro spark__json_has_any_key(expr, keys) -%}
  exists(json_object_keys({{ expr }}), k -> lower(k) in ({{ bloomery._redacted_list(keys) }}))
{%- endmacro %}

{% macro spark__json_without_keys(expr, keys) -%}
  to_json(map_filter(variant_get(parse_json({{ expr }}), '$', 'map<string,variant>'), (k, v) -> lower(k) not in ({{ bloomery._redacted_list(keys) }})))
{%- endmacro %}
