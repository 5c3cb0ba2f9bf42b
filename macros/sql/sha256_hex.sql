{#- Lowercase hex sha256 of a SQL text expression (reject_id hashes with it). Each engine
    spells it (macros/adapters/<engine>/sql.sql); ISO SQL has no digest function. -#}
{% macro sha256_hex(expr) -%}
  {{ return(adapter.dispatch('sha256_hex', 'bloomery')(expr)) }}
{%- endmacro %}
{#- No portable (ISO SQL) form: each engine implements it under macros/adapters/<engine>/. -#}
{% macro default__sha256_hex(expr) -%}
  {{ exceptions.raise_compiler_error("bloomery: a SHA-256 digest as lowercase hex has no portable SQL form; implement <engine>__sha256_hex (see macros/adapters/)") }}
{%- endmacro %}
