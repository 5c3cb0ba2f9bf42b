{#- `mart_data_quality` itself: the history's columns and no row. Its rows arrive from each
    `<entity>__quality`'s post-hook (mart_record); the model only creates the table on the first
    build and keeps it (full_refresh: false) on every later one. -#}
{% macro mart_data_quality() -%}
  {{ return(adapter.dispatch('mart_data_quality', 'bloomery')()) }}
{%- endmacro %}

{% macro default__mart_data_quality() -%}
select
  {{ bloomery._mart_columns(empty=true) }}
from (select 1 as one) as nothing
where 1 = 0
{%- endmacro %}

{#- The mart's columns in its order: the counts (of `<entity>__quality` as `counts`, or typed
    nulls when `empty`: the history's shape), with this run's identity and date buckets between
    and after them. -#}
{% macro _mart_columns(empty) -%}
  {%- set s = bloomery.type_name({'name': 'string'}) -%}
  {%- set i = bloomery.type_name({'name': 'int'}) -%}
  {%- set d = bloomery.type_name({'name': 'date'}) -%}
  {%- set day = run_started_at.date() -%}
  {%- set week = day - modules.datetime.timedelta(days=day.weekday()) -%}
  {%- set run = {
      'run_id': 'cast(' ~ bloomery.string_literal(invocation_id) ~ ' as ' ~ s ~ ')',
      'run_date': 'cast(' ~ bloomery.string_literal(day.isoformat()) ~ ' as ' ~ d ~ ')',
      'run_day': 'cast(' ~ bloomery.string_literal(day.isoformat()) ~ ' as ' ~ d ~ ')',
      'run_week': 'cast(' ~ bloomery.string_literal(week.isoformat()) ~ ' as ' ~ d ~ ')',
      'run_month': 'cast(' ~ bloomery.string_literal(day.replace(day=1).isoformat()) ~ ' as ' ~ d ~ ')',
      'run_quarter': 'cast(' ~ bloomery.string_literal(day.replace(day=1, month=((day.month - 1) // 3) * 3 + 1).isoformat()) ~ ' as ' ~ d ~ ')',
      'run_year': 'cast(' ~ bloomery.string_literal(day.replace(day=1, month=1).isoformat()) ~ ' as ' ~ d ~ ')',
      'run_started_at': 'cast(' ~ bloomery.string_literal(run_started_at.strftime('%Y-%m-%d %H:%M:%S.%f')) ~ ' as '
                        ~ bloomery.type_name({'name': 'timestamp'}) ~ ')'} -%}
  {%- set columns = [] -%}
  {%- for name in ['entity', 'mapping', 'rule', 'disposition', 'run_id', 'run_date', 'rows_evaluated', 'rows_failed',
                   'rows_quarantined', 'rows_deduped', 'run_day', 'run_week', 'run_month', 'run_quarter', 'run_year',
                   'run_started_at'] -%}
    {%- if name in run -%}
      {%- do columns.append(run[name] ~ ' as ' ~ name) -%}
    {%- elif empty -%}
      {%- do columns.append('cast(null as ' ~ (i if name.startswith('rows_') else s) ~ ') as ' ~ name) -%}
    {%- else -%}
      {%- do columns.append('counts.' ~ name) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ columns | join(',\n  ') }}
{%- endmacro %}
