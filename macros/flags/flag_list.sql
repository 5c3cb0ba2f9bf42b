{#- The flag column: the names of the rules a row fired, in lexicographic order, never NULL.
    `items` is a list of [rule name, verdict sql] already sorted by name. -#}
{% macro flag_list(items) -%}
  {{ return(adapter.dispatch('flag_list', 'bloomery')(items)) }}
{%- endmacro %}

{% macro default__flag_list(items) -%}
  {%- set empty = 'cast([] as ' ~ bloomery.type_name({'name': 'string'}) ~ '[])' -%}
  {%- if not items -%}{{ empty }}{%- else -%}
  {%- set parts = [] -%}
  {%- for item in items -%}
    {%- do parts.append('case when ' ~ item[1] ~ ' then [' ~ bloomery.string_literal(item[0]) ~ '] else ' ~ empty ~ ' end') -%}
  {%- endfor -%}
  {%- set ns = namespace(acc=parts[0]) -%}
  {%- for p in parts[1:] -%}{%- set ns.acc = 'list_concat(' ~ ns.acc ~ ', ' ~ p ~ ')' -%}{%- endfor -%}
  {{ ns.acc }}
  {%- endif -%}
{%- endmacro %}


{% macro empty_flags() -%}{{ bloomery.flag_list([]) }}{%- endmacro %}

{#- Number of names in a flag column. -#}
{% macro flags_size(expr) -%}
  {{ return(adapter.dispatch('flags_size', 'bloomery')(expr)) }}
{%- endmacro %}
{% macro default__flags_size(expr) -%}len({{ expr }}){%- endmacro %}

{% macro flags_contain(expr, name) -%}
  {{ return(adapter.dispatch('flags_contain', 'bloomery')(expr, name)) }}
{%- endmacro %}
{% macro default__flags_contain(expr, name) -%}list_contains({{ expr }}, {{ bloomery.string_literal(name) }}){%- endmacro %}
