{#- Spark's overrides live in this folder, one file per concept (values, regex, flags, formats,
    writes, reject, mart, replay, checks, sql), each saying why the engine differs.
    Databricks dispatches here too (dbt-databricks declares dbt-spark as its parent), so these are
    also its SQL unless a `databricks__` macro says otherwise; the dialect matrix is docs/dialects.md.

    Writes. A parquet table has no DELETE, UPDATE or MERGE, and Spark refuses an INSERT OVERWRITE
    of a table the same query reads. So every write that changes existing rows is a rewrite: the
    rows to keep go to a side table (`<table>__bloomery_rewrite`), which then overwrites the table.
      - `<entity>`: incremental `append`; the pre-hook that deletes the rows this run re-judges
        rewrites the table without them (`entity_delete_touched`). `<entity>__ledger_rest` (or a
        type 2 entity's `<entity>__ledger`) likewise (`ledger_forget_rejudged`).
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

{#- ---- writes ------------------------------------------------------------------------------ -#}

{#- Replace the rows of `relation` with the rows of `select_sql` (which may read `relation`):
    through a side table, since Spark will not overwrite a table the same query reads.
    `drops_only`: `select_sql` keeps a subset of the rows (a DELETE spelled as a rewrite), so when
    it keeps as many rows as there are it keeps them all, and nothing is written. Most builds drop
    nothing (a load of new deliveries re-judges none), and one count is far cheaper than the four
    statements and the copy of the table a rewrite costs. -#}
{% macro _spark_rewrite(relation, select_sql, drops_only=false) -%}
  {%- if drops_only -%}
    {%- set counts = run_query('select (select count(*) from ' ~ relation ~ ') - (select count(*) from (' ~ select_sql ~ ') as kept)') -%}
    {%- if counts.columns[0].values()[0] == 0 -%}{{ return('') }}{%- endif -%}
  {%- endif -%}
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
    {%- do bloomery._spark_rewrite(this, keep, drops_only=true) -%}
  {%- endif -%}
{%- endmacro %}

{#- The ledger's pre-hook (a type 2 entity's ledger, or the rest table the entity's own pre-hook
    writes): forgetting the re-judged deliveries, as a rewrite without them. -#}
{% macro spark__ledger_forget_rejudged(staged, everything, versions, ledger) -%}
  {%- if execute -%}
    {%- set q = adapter.quote -%}
    {%- set keep -%}
      select t.* from {{ ledger }} as t
      left anti join (select distinct {{ q('_source_row_id') }}, {{ q('_load_id') }}, {{ q('_ingested_at') }}, {{ q('_bloomery_source') }} from {{ staged }}) as d
        on t.{{ q('_source_row_id') }} = d.{{ q('_source_row_id') }} and t.{{ q('_load_id') }} = d.{{ q('_load_id') }}
       and t.{{ q('_ingested_at') }} = d.{{ q('_ingested_at') }} and t.{{ q('source_relation') }} = d.{{ q('_bloomery_source') }}
      {%- if everything %}
      where t.{{ q('route') }} in {{ bloomery._ledger_routes_kept(versions) }}
      {%- endif %}
    {%- endset -%}
    {%- do bloomery._spark_rewrite(ledger, keep, drops_only=true) -%}
  {%- endif -%}
{%- endmacro %}

{#- the rest table of a type 1 entity's ledger (ledger_rest.sql): parquet, as every table here -#}
{% macro spark__ledger_rest_create(rest, sql) -%}
create table {{ rest }} using parquet as
{{ sql }}
{%- endmacro %}

{#- No transactions: each statement above is final when it returns. -#}
{% macro spark__end_transaction(name) -%}{%- endmacro %}
