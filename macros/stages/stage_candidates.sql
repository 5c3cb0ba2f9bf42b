{#- Candidates: the typed rows this run judges. Every row, unless an incremental batch is decided on
    typed values (a `unique` rule: not `narrow`); then the batch's rows, the rows sharing a `unique`
    value with them (`touching`), the other deliveries of their source rows and, with dedupe, every
    row of a key they touch (`touched_keys`), so each verdict and each key's winner is the one a
    full build gives. A `narrow` batch picked its rows from bronze already (stage_batch). -#}
{% macro stage_candidates(staging) -%}
  {{ return(adapter.dispatch('stage_candidates', 'bloomery')(staging)) }}
{%- endmacro %}

{% macro default__stage_candidates(staging) -%}
{%- set q = adapter.quote -%}
{%- set entity, state, unique_rules = staging.entity, staging.state, staging.unique_rules -%}
{%- set key, narrow, merged = entity.key, staging.narrow, staging.merged %}
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
{%- endmacro %}
