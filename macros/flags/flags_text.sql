{#- A flag column as one comma-separated text, to compare two of them (replay: did a re-judged
    row's verdict change). -#}
{% macro flags_text(expr) -%}
  {{ return(adapter.dispatch('flags_text', 'bloomery')(expr)) }}
{%- endmacro %}
{#- No portable (ISO SQL) form: each engine implements it under macros/adapters/<engine>/. -#}
{% macro default__flags_text(expr) -%}
  {{ exceptions.raise_compiler_error("bloomery: a flag array as one comma-separated text has no portable SQL form; implement <engine>__flags_text (see macros/adapters/)") }}
{%- endmacro %}
