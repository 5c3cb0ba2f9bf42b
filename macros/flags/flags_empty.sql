{#- The empty flag list, one of the three spellings flag_list's portable chain is made of
    (flags/flag_list.sql); the default is SQL:2003's array syntax. -#}
{% macro flags_empty() -%}{{ return(adapter.dispatch('flags_empty', 'bloomery')()) }}{%- endmacro %}
{% macro default__flags_empty() -%}{{ return('cast(array[] as ' ~ bloomery.type_name({'name': 'string'}) ~ ' array)') }}{%- endmacro %}
