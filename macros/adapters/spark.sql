{#- Every spark override of the package in one place: the engine's differences, and why.
    Databricks dispatches here too (dbt-databricks declares dbt-spark as its parent), so these are
    also its SQL unless a `databricks__` macro says otherwise; the dialect matrix is docs/dialects.md.

    Writes. A parquet table has no DELETE, UPDATE or MERGE, and Spark refuses an INSERT OVERWRITE
    of a table the same query reads. So every write that changes existing rows is a rewrite: the
    rows to keep go to a side table (`<table>__bloomery_rewrite`), which then overwrites the table.
      - `<entity>`: incremental `append`; the pre-hook that deletes the rows this run re-judges
        rewrites the table without them (`entity_delete_touched`). `<entity>__ledger` likewise
        (`ledger_forget_rejudged`).
      - `<entity>__reject`: `insert_overwrite` of the whole table, rebuilt by its own select from a
        snapshot taken by a pre-hook (`<table>__bloomery_prev`): this run's diverted rows, the
        earlier rows they do not replace, the resolve post-hook folded in as a CASE, the redact
        post-hook as a CASE on `raw` (a widened `redact` reaches earlier rows) and the retention
        purge as a filter; those post-hooks then render nothing.
      - `mart_data_quality`: `append` of this run's snapshot (its `run_id` is new every run); a
        pre-hook first rewrites away rows a retried run may have left under the same `run_id`.
      - replay and `purge_rejects` (run-operations) rewrite the entity and the reject table.
    The strategy is decided here, at parse time, by a `config()` call from the model's own macro:
    the emitter writes one config for every engine. -#}

{% macro spark__type_name(type) -%}
  {%- set names = {'string': 'string', 'int': 'bigint', 'bool': 'boolean', 'date': 'date',
                   'timestamp': 'timestamp', 'variant': 'string'} -%}
  {%- if type.name == 'decimal' -%}decimal({{ type.precision }},{{ type.scale }})
  {%- else -%}{{ names[type.name] }}{%- endif -%}
{%- endmacro %}

{#- dbt-spark runs every session with spark.sql.ansi.enabled=false, where a plain CAST yields NULL
    instead of raising: produce-or-raise has to raise by itself. -#}
{% macro spark__hard_cast(expr, type) -%}
  {%- set t = bloomery.type_name(type) -%}
  coalesce(try_cast({{ expr }} as {{ t }}), case when {{ expr }} is not null then raise_error(concat('bloomery: value ', cast({{ expr }} as string), ' does not cast to {{ t }}')) end)
{%- endmacro %}

{#- Java regex; `rlike` is a substring search like the others, hence the mandatory anchors. The
    pattern is first given RE2's meaning (`_spark_java_regex`). -#}
{% macro spark__regex_match(expr, pattern) -%}
  ({{ expr }} rlike {{ bloomery.string_literal(bloomery._spark_java_regex(pattern)) }})
{%- endmacro %}

{#- Where Java reads the portable subset differently from RE2 (measured by
    test_regex_portability.py), spell RE2's meaning out:
      `$`   Java also matches before a final line terminator ('x\n' ~ '^x$'): `\z`, the very end;
      `.`   Java also excludes \r, U+0085, U+2028, U+2029: `[^\n]`, as RE2;
      `\s`  Java's includes the vertical tab: `[\t\n\f\r ]`, as RE2 (and `\S` its complement; inside
            a class `[^...]` nests, which Java reads as a union).
    Nested classes and `&&` mean other things in Java; the subset refuses both. -#}
{% macro _spark_java_regex(pattern) -%}
  {%- set space = '\\t\\n\\f\\r ' -%}
  {%- set ns = namespace(out='', escaped=false, in_class=false) -%}
  {%- for ch in pattern -%}
    {%- if ns.escaped -%}
      {%- set ns.escaped = false -%}
      {%- if ch == 's' -%}{%- set ns.out = ns.out ~ (space if ns.in_class else '[' ~ space ~ ']') -%}
      {%- elif ch == 'S' -%}{%- set ns.out = ns.out ~ '[^' ~ space ~ ']' -%}
      {%- else -%}{%- set ns.out = ns.out ~ '\\' ~ ch -%}{%- endif -%}
    {%- elif ch == '\\' -%}{%- set ns.escaped = true -%}
    {%- elif ns.in_class -%}
      {%- if ch == ']' -%}{%- set ns.in_class = false -%}{%- endif -%}
      {%- set ns.out = ns.out ~ ch -%}
    {%- elif ch == '[' -%}{%- set ns.in_class = true -%}{%- set ns.out = ns.out ~ ch -%}
    {%- elif ch == '.' -%}{%- set ns.out = ns.out ~ '[^\\n]' -%}
    {%- elif ch == '$' -%}{%- set ns.out = ns.out ~ '\\z' -%}
    {%- else -%}{%- set ns.out = ns.out ~ ch -%}{%- endif -%}
  {%- endfor -%}
  {{ return(ns.out) }}
{%- endmacro %}

{#- Spark reads backslash as an escape inside string literals. -#}
{% macro spark__string_literal(value) -%}
  '{{ (value | string) | replace("\\", "\\\\") | replace("'", "\\'") }}'
{%- endmacro %}

{#- chr(n) is chr(n % 256) on Spark: write the character as a \u escape instead (a surrogate
    pair above the BMP; Spark strings are Java strings). -#}
{% macro spark__chr(point) -%}
  {%- set p = point | int -%}
  {%- if p > 65535 -%}
    {%- set v = p - 65536 -%}'\u{{ '%04x' % (55296 + v // 1024) }}\u{{ '%04x' % (56320 + v % 1024) }}'
  {%- else -%}'\u{{ '%04x' % p }}'{%- endif -%}
{%- endmacro %}

{#- Spark SQL has no NORMALIZE; Spark 4 ships ICU4J (for collations), whose static
    Normalizer.compose(text, false) is NFC, reachable through reflect(). It throws on NULL. -#}
{% macro spark__nfc_normalize(expr) -%}
  case when {{ expr }} is not null then reflect('com.ibm.icu.text.Normalizer', 'compose', {{ expr }}, false) end
{%- endmacro %}

{% macro spark__flag_list(items) -%}
  {%- set empty = 'cast(array() as array<string>)' -%}
  {%- if not items -%}{{ empty }}{%- else -%}
  {%- set parts = [] -%}
  {%- for item in items -%}
    {%- do parts.append('case when ' ~ item[1] ~ ' then array(' ~ bloomery.string_literal(item[0]) ~ ') else ' ~ empty ~ ' end') -%}
  {%- endfor -%}
  {%- set ns = namespace(acc=parts[0]) -%}
  {%- for p in parts[1:] -%}{%- set ns.acc = 'concat(' ~ ns.acc ~ ', ' ~ p ~ ')' -%}{%- endfor -%}
  {{ ns.acc }}
  {%- endif -%}
{%- endmacro %}

{% macro spark__flags_size(expr) -%}size({{ expr }}){%- endmacro %}

{% macro spark__flags_contain(expr, name) -%}array_contains({{ expr }}, {{ bloomery.string_literal(name) }}){%- endmacro %}

{% macro spark__flags_text(expr) -%}array_join({{ expr }}, ','){%- endmacro %}

{#- sha2 hashes the UTF-8 bytes of a string and returns lowercase hex. -#}
{% macro spark__sha256_hex(expr) -%}sha2({{ expr }}, 256){%- endmacro %}

{#- to_json drops null fields unless told otherwise; a struct keeps the (sorted) key order. -#}
{% macro spark__json_object(columns, prefix, column_prefix) -%}
  {%- if not columns -%}'{}'{%- else -%}
  to_json(named_struct({% for c in columns | sort %}{{ bloomery.string_literal(c) }}, {{ prefix }}{{ adapter.quote(column_prefix ~ c) }}{{ ", " if not loop.last }}{% endfor %}), map('ignoreNullFields', 'false'))
  {%- endif -%}
{%- endmacro %}

{#- get_json_object returns a string scalar unquoted (and an object or array as JSON text). Its
    path has no quoted member `$."name"`: that becomes the bracket form `$['name']`. -#}
{% macro spark__json_scalar(expr, path) -%}
  get_json_object({{ expr }}, {{ bloomery.string_literal(bloomery._spark_json_path(path)) }})
{%- endmacro %}

{% macro spark__json_path(expr, path) -%}
  get_json_object({{ expr }}, {{ bloomery.string_literal(bloomery._spark_json_path(path)) }})
{%- endmacro %}

{% macro _spark_json_path(path) -%}
  {%- if path.startswith('$."') and path.endswith('"') -%}
    {{ return("$['" ~ fromjson(path[2:]) ~ "']") }}
  {%- endif -%}
  {{ return(path) }}
{%- endmacro %}

{#- strptime directives become a Java datetime pattern (one letter: 1 or 2 digits, like %d);
    surrounding blanks are ignored, as DuckDB's strptime does. -#}
{% macro spark__parse_format(expr, format, type, safe) -%}
  {%- set value = 'try_to_timestamp(trim(' ~ expr ~ '), ' ~ bloomery.string_literal(bloomery._spark_datetime_pattern(format)) ~ ')' -%}
  {%- set out = bloomery.type_name(type) -%}
  {%- if safe -%}cast({{ value }} as {{ out }})
  {%- else -%}cast(coalesce({{ value }}, case when {{ expr }} is not null then raise_error(concat('bloomery: value ', {{ expr }}, ' does not match the format ', {{ bloomery.string_literal(format) }})) end) as {{ out }})
  {%- endif -%}
{%- endmacro %}

{% macro _spark_datetime_pattern(format) -%}
  {%- set letters = {'Y': 'y', 'm': 'M', 'd': 'd', 'H': 'H', 'M': 'm', 'S': 's'} -%}
  {%- set ns = namespace(out='', pct=false) -%}
  {%- for ch in format -%}
    {%- if ns.pct -%}
      {%- set ns.pct = false -%}
      {%- if ch == '%' -%}{%- set ns.out = ns.out ~ '%' -%}
      {%- elif ch in letters -%}{%- set ns.out = ns.out ~ letters[ch] -%}
      {%- else -%}
        {{ exceptions.raise_compiler_error("bloomery.parse_format: the format '" ~ format ~ "' uses %" ~ ch ~ ", which the spark port does not read; it reads %Y %m %d %H %M %S and %%.") }}
      {%- endif -%}
    {%- elif ch == '%' -%}{%- set ns.pct = true -%}
    {%- elif ch == "'" -%}{%- set ns.out = ns.out ~ "''" -%}
    {%- elif ch.isalpha() -%}{%- set ns.out = ns.out ~ "'" ~ ch ~ "'" -%}
    {%- else -%}{%- set ns.out = ns.out ~ ch -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(ns.out) }}
{%- endmacro %}

{#- A plain CAST does not raise with ANSI off (dbt-spark's sessions): raise_error, naming the value. -#}
{% macro spark__decimal_format_error(expr, step) -%}
  cast(raise_error(concat('bloomery: value ', {{ expr }}, {{ bloomery.string_literal(' does not match the decimal format of ' ~ step.sample) }})) as {{ bloomery.type_name(step.type) }})
{%- endmacro %}

{#- Wall-clock time in `zone` to UTC. -#}
{% macro spark__to_utc(expr, zone) -%}
  to_utc_timestamp({{ expr }}, {{ bloomery.string_literal(zone) }})
{%- endmacro %}

{#- text_to_timestamp's pattern in Java: `[[:space:]]` is no POSIX class there (a nested class of
    its letters); `\s` is the same ASCII set as RE2's [[:space:]]. -#}
{% macro spark__iso_timestamp_group(expr, name) -%}
  {%- set p = bloomery.iso_timestamp_pattern(blank='\\s') -%}
  regexp_extract({{ expr }}, {{ bloomery.string_literal(p.regex) }}, {{ p.groups[name] }})
{%- endmacro %}

{#- A plain CAST does not raise with ANSI off (dbt-spark's sessions): raise_error, naming the value. -#}
{% macro spark__timestamp_cast_error(expr) -%}
  cast(raise_error(concat('bloomery: value ', {{ expr }}, ' is not an ISO 8601 timestamp')) as timestamp)
{%- endmacro %}


{#- ---- writes ------------------------------------------------------------------------------ -#}

{#- Replace the rows of `relation` with the rows of `select_sql` (which may read `relation`):
    through a side table, since Spark will not overwrite a table the same query reads. -#}
{% macro _spark_rewrite(relation, select_sql) -%}
  {%- set side = relation.incorporate(path={'identifier': relation.identifier ~ '__bloomery_rewrite'}) -%}
  {%- do run_query('drop table if exists ' ~ side) -%}
  {%- do run_query('create table ' ~ side ~ ' using parquet as ' ~ select_sql) -%}
  {%- do run_query('insert overwrite table ' ~ relation ~ ' select * from ' ~ side) -%}
  {%- do run_query('drop table if exists ' ~ side) -%}
{%- endmacro %}

{#- The entity's pre-hook: the DELETE of the rows this run re-judges, as a rewrite without them
    (anti joins: a NULL `_source_row_id` or key matches nothing, as in `in` / `exists`). With
    dedupe a row is re-judged by its key, or by its delivery (a NULL key is its own group), as in
    `default__entity_delete_touched`. -#}
{% macro spark__entity_delete_touched(key, dedupe, staged, merged=false) -%}
  {%- if is_incremental() -%}
    {%- set q = adapter.quote -%}
    {%- set delivery = [q('_source_row_id')] + ([q('_load_id'), q('_ingested_at')] if dedupe else []) -%}
    {%- set keep -%}
      select t.* from {{ this }} as t
      left anti join (select distinct {{ delivery | join(', ') }}{% if merged %}, {{ q('_bloomery_source') }}{% endif %} from {{ staged }}) as d
        on {% for c in delivery %}t.{{ c }} = d.{{ c }}{{ " and " if not loop.last }}{% endfor %}
        {%- if merged %} and t.{{ q('_source') }} = d.{{ q('_bloomery_source') }}{% endif %}
      {%- if dedupe %}
      left anti join (select distinct {% for k in key %}{{ q(k) }}{{ ", " if not loop.last }}{% endfor %} from {{ staged }}) as s
        on {% for k in key %}t.{{ q(k) }} = s.{{ q(k) }}{{ " and " if not loop.last }}{% endfor %}
      {%- endif %}
    {%- endset -%}
    {%- do bloomery._spark_rewrite(this, keep) -%}
  {%- endif -%}
{%- endmacro %}

{#- The ledger's pre-hook: forgetting the re-judged deliveries, as a rewrite without them. -#}
{% macro spark__ledger_forget_rejudged(staged, everything) -%}
  {%- if is_incremental() -%}
    {%- set q = adapter.quote -%}
    {%- set keep -%}
      select t.* from {{ this }} as t
      left anti join (select distinct {{ q('_source_row_id') }}, {{ q('_load_id') }}, {{ q('_ingested_at') }}, {{ q('_bloomery_source') }} from {{ staged }}) as d
        on t.{{ q('_source_row_id') }} = d.{{ q('_source_row_id') }} and t.{{ q('_load_id') }} = d.{{ q('_load_id') }}
       and t.{{ q('_ingested_at') }} = d.{{ q('_ingested_at') }} and t.{{ q('source_relation') }} = d.{{ q('_bloomery_source') }}
      {%- if everything %}
      where t.{{ q('route') }} in ('quarantine', 'expired')
      {%- endif %}
    {%- endset -%}
    {%- do bloomery._spark_rewrite(this, keep) -%}
  {%- endif -%}
{%- endmacro %}

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

{#- Rewrites `<entity>__ledger` (if there is one) with the deliveries of the reject rows retention
    drops from `reject` marked 'expired'; the rows `staged` diverts or holds are spared. -#}
{% macro _spark_expire_in_ledger(reject, retention_hours, staged=none) -%}
  {%- set ledger = adapter.get_relation(database=reject.database, schema=reject.schema,
                                        identifier=reject.identifier[:-('__reject' | length)] ~ '__ledger') -%}
  {%- if ledger is not none -%}
    {%- set q = adapter.quote -%}
    {%- set cols = ['source_relation', '_source_row_id', '_load_id', '_ingested_at', 'route', 'winner_row_id', 'run_id'] -%}
    {%- set keep -%}
      select {% for c in cols %}{% if c == 'route' %}case when l.{{ q('route') }} = 'quarantine' and e.{{ q('_source_row_id') }} is not null then 'expired' else l.{{ q('route') }} end as {{ q('route') }}{% else %}l.{{ q(c) }}{% endif %}{{ ", " if not loop.last }}{% endfor %}
      from {{ ledger }} as l
      left join (
        select distinct r.{{ q('source_relation') }}, r.{{ q('_source_row_id') }} from {{ reject }} as r
        {%- if staged is not none %}
        left anti join (select {{ q('_source_row_id') }}, {{ q('_bloomery_source') }} from {{ staged }}
                        where {{ q('_bloomery_route') }} in ('quarantine', 'held')) as f
          on f.{{ q('_source_row_id') }} = r.{{ q('_source_row_id') }} and f.{{ q('_bloomery_source') }} = r.{{ q('source_relation') }}
        {%- endif %}
        where not ({{ bloomery._spark_retained(retention_hours) }})
      ) as e on e.{{ q('_source_row_id') }} = l.{{ q('_source_row_id') }} and e.{{ q('source_relation') }} = l.{{ q('source_relation') }}
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
  {{ return(['reject_id', 'source_relation', 'mapping', 'mapping_version', 'failed_rules', 'key_values', 'raw',
             '_load_id', '_ingested_at', '_source_row_id', 'first_seen', 'last_seen', 'resolved_at', 'last_evaluated_at']) }}
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
    {%- do bloomery._spark_rewrite(relation, 'select * from ' ~ relation ~ ' where ' ~ bloomery._spark_retained(retention_hours)) -%}
  {%- endif -%}
{%- endmacro %}

{#- One snapshot per run, keyed by run_id: appended, after a pre-hook rewrites away rows of the
    same run_id (only a retried run has any). -#}
{% macro spark__mart_data_quality(entities, reconcile) -%}
  {%- do config(incremental_strategy='append', pre_hook=['{{ bloomery.spark_drop_run() }}']) -%}
  {{ return(bloomery.default__mart_data_quality(entities, reconcile)) }}
{%- endmacro %}

{% macro spark_drop_run() -%}
  {%- if execute and is_incremental() -%}
    {%- set where = 'run_id = ' ~ bloomery.string_literal(invocation_id) -%}
    {%- if run_query('select count(*) from ' ~ this ~ ' where ' ~ where).columns[0].values()[0] > 0 -%}
      {%- do bloomery._spark_rewrite(this, 'select * from ' ~ this ~ ' where not (' ~ where ~ ')') -%}
    {%- endif -%}
  {%- endif -%}
{%- endmacro %}

{#- No transactions: each statement above is final when it returns. -#}
{% macro spark__end_transaction(name) -%}{%- endmacro %}


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
  {%- do cols.extend([q('_load_id'), q('_ingested_at'), q('_source_row_id')] + ([q('_source')] if merged else []) + [q('_quality_flags')]) -%}
  {%- set entity_sql -%}
    select {% for c in cols %}t.{{ c }}, {% endfor %}t.{{ q('_quality_ok') }}
    from {{ kept }} as t
    left anti join (select {{ q('_source_row_id') }}, {{ q('_bloomery_source') }} from {{ outcome }} where {{ o_ }} = 'admit') as a
      on t.{{ q('_source_row_id') }} = a.{{ q('_source_row_id') }}
      {%- if merged %} and t.{{ q('_source') }} = a.{{ q('_bloomery_source') }}{% endif %}
    {%- if ir.dedupe %}
    left anti join (select {% for k in ir.key %}{{ q(k) }}{{ ", " if not loop.last }}{% endfor %} from {{ outcome }} where {{ o_ }} = 'admit') as ak
      on {% for k in ir.key %}t.{{ q(k) }} = ak.{{ q(k) }}{{ " and " if not loop.last }}{% endfor %}
    {%- endif %}
    union all
    select {% for c in cols %}{{ q('_bloomery_source') if c == q('_source') else c }}, {% endfor %}{{ bloomery.flags_size(q('_quality_flags')) }} = 0
    from {{ outcome }}
    where {{ o_ }} = 'admit'
  {%- endset -%}
  {%- do bloomery._spark_rewrite(kept, entity_sql) -%}
  {#- `o` is the outcome of this very row (joined below on bronze relation and source row id) -#}
  {%- set open = 'r.' ~ q('resolved_at') ~ ' is null and o.' ~ q('_source_row_id') ~ ' is not null' -%}
  {%- set resolved = '(' ~ open ~ ' and o.' ~ o_ ~ " in ('admit', 'superseded'))" -%}
  {%- set superseded = '(' ~ open ~ ' and o.' ~ o_ ~ " = 'superseded')" -%}
  {%- set restamped = '(' ~ open ~ ' and o.' ~ o_ ~ " = 'failing' and (r." ~ q('last_evaluated_at') ~ ' is null or '
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
