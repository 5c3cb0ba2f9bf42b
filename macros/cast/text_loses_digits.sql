{#- Whether a text would lose digits in a cast to `type` (int or decimal(p,s)); NULL for NULL. -#}
{% macro text_loses_digits(expr, type) -%}
  {%- set scale = (type.scale | int) if type.name == 'decimal' else 0 -%}
  {%- set integer = ((type.precision | int) - scale) if type.name == 'decimal' else 19 -%}
  {%- set wide = {'name': 'decimal', 'precision': 38, 'scale': 38 - integer} -%}
  {%- set read = bloomery.safe_cast(expr, wide) -%}
  {%- set past = '[0-9]{' ~ scale ~ '}' if scale else '' -%}
  (case when {{ bloomery.regex_match(expr, '[eE]') }} then round({{ read }}, {{ scale }}) <> {{ read }}
        else {{ bloomery.regex_match(expr, '^[^eE]*[.]' ~ past ~ '[0-9]*[1-9]') }} end)
{%- endmacro %}
