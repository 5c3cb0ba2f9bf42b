{#- Two flag lists concatenated, one of the three spellings flag_list's portable chain is made
    of (flags/flag_list.sql); the default is SQL:2003's `||`. -#}
{% macro flags_concat(left, right) -%}{{ return(adapter.dispatch('flags_concat', 'bloomery')(left, right)) }}{%- endmacro %}
{% macro default__flags_concat(left, right) -%}{{ return('(' ~ left ~ ' || ' ~ right ~ ')') }}{%- endmacro %}
