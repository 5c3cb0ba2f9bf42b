{#- Lowercase hex sha256 of a SQL text expression (reject_id hashes with it). Each engine
    spells it (macros/adapters/<engine>/sql.sql); ISO SQL has no digest function. -#}
{% macro sha256_hex(expr) -%}
  {{ return(adapter.dispatch('sha256_hex', 'bloomery')(expr)) }}
{%- endmacro %}

{% macro default__sha256_hex(expr) -%}{{ bloomery.no_portable_form("sha256_hex", "a SHA-256 digest as lowercase hex") }}{%- endmacro %}
