{#- Whether a flag column holds the rule `name` (a quantified comparison by default). -#}
{% macro flags_contain(expr, name) -%}
  {{ return(adapter.dispatch('flags_contain', 'bloomery')(expr, name)) }}
{%- endmacro %}
{#- No portable (ISO SQL) form: each engine implements it under macros/adapters/<engine>/. -#}
{% macro default__flags_contain(expr, name) -%}
  {{ exceptions.raise_compiler_error("bloomery: testing that a flag array holds a name (`= ANY` over an array is no standard SQL) has no portable SQL form; implement <engine>__flags_contain (see macros/adapters/)") }}
{%- endmacro %}
