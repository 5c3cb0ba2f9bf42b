{#- The flag column of a row that fired no rule: its own file because routing (quality_split) and
    the published entity rows (entity_rows) both call it. -#}
{% macro empty_flags() -%}{{ bloomery.flag_list([]) }}{%- endmacro %}
