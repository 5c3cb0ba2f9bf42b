{#- Write once (issue 22). A build that creates the entity from nothing (a first build, a
    `--full-refresh`, every build of a `full` entity) publishes `<entity>__staged` itself instead
    of copying its kept rows into a second table: the copy was about 0.6 of the floor's whole cost
    at 10M rows. Where the engine renames a table cheaply and inside a transaction (DuckDB), the
    entity's post-hook, in the transaction of the entity's own node:
      1. keeps the rows that are not kept, narrow (no bronze payload: the reject table, built
         before the entity, holds it), in `<entity>__staged_rest`;
      2. deletes them from the staged table, drops the columns the entity does not publish and
         adds `_quality_ok`;
      3. moves what the model's own statement wrote (the unknown member, if declared) into it;
      4. drops that statement's table and renames the staged table into its place;
      5. makes `<entity>__staged` a view (the published kept rows, with the verdict columns they
         had, and the rest table), so the ledger and a later `dbt test` read every judged row.
    Nothing is visible before the blocking audits on `__staged` passed (they run before the entity
    node), and a kill at any point before the node commits rolls all of it back. The next build
    replaces the view with a table again. Other engines, and builds that append to an existing
    entity, copy as before (`entity_rows`). -#}
{% macro publishes_staged(entity) -%}
  {{ return(adapter.dispatch('publishes_staged', 'bloomery')(entity)) }}
{%- endmacro %}

{% macro default__publishes_staged(entity) -%}
  {{ return(false) }}
{%- endmacro %}

{#- Not a type 2 entity (its entity is a view the snapshot versions), nor a merged one (its
    `_source` is renamed from `_bloomery_source`), nor one without ingestion metadata (the view
    tells the unknown member from judged rows by its missing `_source_row_id`). -#}
{% macro duckdb__publishes_staged(entity) -%}
  {{ return(entity.scd != 'type2' and entity.metadata and (entity.mappings | length) == 1
            and model.config.materialized in ('table', 'incremental') and not is_incremental()) }}
{%- endmacro %}

{#- The mark the model's statement carries on the publishing path: the post-hook is rendered once
    the entity's table exists, when `is_incremental()` no longer tells a first build apart, so it
    reads the decision the statement was compiled with. -#}
{% macro publish_mark() -%}/* bloomery: the staged table is published */{%- endmacro %}

{#- `mapping`, `source`: the entity's one mapping and its bronze relation, by name (a hook does
    not see the model's `entity`), for the verdict columns of the kept rows in the view. -#}
{% macro publish_staged(mapping, source, staged) -%}
  {{ return(adapter.dispatch('publish_staged', 'bloomery')(mapping, source, staged)) }}
{%- endmacro %}

{% macro default__publish_staged(mapping, source, staged) -%}select 1{%- endmacro %}

{% macro duckdb__publish_staged(mapping, source, staged) -%}
  {%- if not execute or bloomery.publish_mark() not in (model.compiled_code or '') -%}select 1{%- else -%}
  {%- set q = adapter.quote -%}
  {%- set rest = staged.incorporate(path={'identifier': staged.identifier ~ '_rest'}) -%}
  {%- set staged_cols = adapter.get_columns_in_relation(staged) -%}
  {#- the bronze payload, when the staged table carries one (not every entity keeps it), is the
      reject table's to keep -#}
  {%- set has_raw = '_bloomery_raw' in (staged_cols | map(attribute='name') | list) -%}
  {%- set entity_cols = adapter.get_columns_in_relation(this) -%}
  {%- set published = entity_cols | map(attribute='name') | list -%}
  {%- set by_name = {} -%}
  {%- for c in entity_cols %}{% do by_name.update({c.name: c.data_type}) %}{% endfor -%}
drop table if exists {{ rest }};
create table {{ rest }} as
select *{% if has_raw %} exclude ({{ q('_bloomery_raw') }}){% endif %} from {{ staged }} where {{ q('_bloomery_route') }} <> 'keep';
delete from {{ staged }} where {{ q('_bloomery_route') }} <> 'keep';
  {%- for c in staged_cols %}
  {%- if c.name not in published %}
alter table {{ staged }} drop column {{ q(c.name) }};
  {%- elif c.data_type | lower != by_name[c.name] | lower %}
alter table {{ staged }} alter column {{ q(c.name) }} type {{ by_name[c.name] }};
  {%- endif %}
  {%- endfor %}
alter table {{ staged }} add column {{ q('_quality_ok') }} boolean;
update {{ staged }} set {{ q('_quality_ok') }} = {{ bloomery.flags_size(q('_quality_flags')) }} = 0;
insert into {{ staged }} by name select * from {{ this }};
drop table {{ this }};
alter table {{ staged }} rename to {{ q(this.identifier) }};
create view {{ staged }} as
select
  {%- for c in staged_cols %}
  {%- if c.name in published %}
  {{ q(c.name) }}
  {%- elif c.name == '_bloomery_mapping' %}
  {{ bloomery.string_literal(mapping) }} as {{ q(c.name) }}
  {%- elif c.name == '_bloomery_source' %}
  {{ bloomery.string_literal(source) }} as {{ q(c.name) }}
  {%- elif c.name == '_bloomery_route' %}
  'keep' as {{ q(c.name) }}
  {%- elif c.name == '_bloomery_diverts' %}
  false as {{ q(c.name) }}
  {%- else %}
  cast(null as {{ c.data_type }}) as {{ q(c.name) }}
  {%- endif %}{{ "," if not loop.last }}
  {%- endfor %}
from {{ this }}
where {{ q('_source_row_id') }} is not null
union all by name
select *{% if has_raw %}, cast(null as json) as {{ q('_bloomery_raw') }}{% endif %} from {{ rest }}
  {%- endif -%}
{%- endmacro %}
