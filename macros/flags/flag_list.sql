{#- The flag column: the names of the rules a row fired, in lexicographic order, never NULL.
    `items` is a list of [rule name, verdict sql] already sorted by name. -#}
{% macro flag_list(items) -%}
  {{ return(adapter.dispatch('flag_list', 'bloomery')(items)) }}
{%- endmacro %}

{#- One list of every rule's name or NULL, the NULLs filtered out: a chain of list_concat, one per
    rule, costs a list per rule per row. `lambda x:` is DuckDB 1.3's syntax (2.0 refuses `->`);
    assert_engine_supported refuses an older DuckDB. -#}
{% macro default__flag_list(items) -%}
  {%- if not items -%}cast([] as {{ bloomery.type_name({'name': 'string'}) }}[])
  {%- else -%}
  list_filter([{% for item in items %}case when {{ item[1] }} then {{ bloomery.string_literal(item[0]) }} end{{ ", " if not loop.last }}{% endfor %}], lambda x: x is not null)
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
