{#- The run's start as a timestamp literal: the stamp a reject row is resolved (resolve_rejects) or
    re-evaluated (replay) at. Its own file because several models' macros call it. To the
    microsecond, as the mart's `run_started_at`: a build and a replay started in the same second
    must still be ordered (replay's note compares the two stamps). -#}
{% macro run_timestamp() -%}
  cast({{ bloomery.string_literal(run_started_at.strftime('%Y-%m-%d %H:%M:%S.%f')) }} as {{ bloomery.type_name({'name': 'timestamp'}) }})
{%- endmacro %}
