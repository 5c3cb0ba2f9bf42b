{#- Whether a text in plain notation (plain_notation) would lose digits in a cast to `type` (int or
    decimal(p,s)): a non-zero digit past the scale-th after the point, exactly, at any length
    (trailing zeros lose nothing: `12.70` is 12.7). NULL for NULL. Anchored at both ends, as
    every pattern here: Snowflake's REGEXP_LIKE matches the whole string, the others search. -#}
{% macro text_loses_digits(expr, type) -%}
  {%- set scale = (type.scale | int) if type.name == 'decimal' else 0 -%}
  {%- set past = '[0-9]{' ~ scale ~ '}' if scale else '' -%}
  {{ bloomery.regex_match(expr, '^[^.]*[.]' ~ past ~ '[0-9]*[1-9][^.]*$') }}
{%- endmacro %}
