{#- A flag list of one name (`name_literal`, already a SQL string literal), one of the three
    spellings flag_list's portable chain is made of (flags/flag_list.sql); the default is
    SQL:2003's array syntax. -#}
{% macro flags_of(name_literal) -%}{{ return(adapter.dispatch('flags_of', 'bloomery')(name_literal)) }}{%- endmacro %}
{% macro default__flags_of(name_literal) -%}{{ return('array[' ~ name_literal ~ ']') }}{%- endmacro %}
