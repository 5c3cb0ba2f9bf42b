{#- The run's start as a timestamp literal: the stamp a reject row is resolved (resolve_rejects) or
    re-evaluated (replay) at. Its own file because several models' macros call it. -#}
{% macro run_timestamp() -%}
  cast({{ bloomery.string_literal(run_started_at.strftime('%Y-%m-%d %H:%M:%S')) }} as {{ bloomery.type_name({'name': 'timestamp'}) }})
{%- endmacro %}
