{#- The mart's pre-hook: a mart built before `run_started_at` was a column gets it (NULL on the
    earlier snapshots), so the one deliberate change of its schema needs no full refresh, which
    the mart refuses (full_refresh: false); on_schema_change stays `fail` for anything else.
    `mart`: the mart, from a snapshot's post-hook when the mart model is not selected (mart_record). -#}
{% macro mart_add_run_started_at(mart=none) -%}
  {%- if execute -%}
    {%- set existing = load_relation(mart or this) -%}
    {%- if existing is not none -%}
      {%- set names = adapter.get_columns_in_relation(existing) | map(attribute='name') | map('lower') | list -%}
      {%- if names and 'run_started_at' not in names -%}
        {%- do alter_relation_add_remove_columns(existing, [api.Column.create('run_started_at', bloomery.type_name({'name': 'timestamp'}))], none) -%}
      {%- endif -%}
    {%- endif -%}
  {%- endif -%}
{%- endmacro %}
