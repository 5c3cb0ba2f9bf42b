{#- A locale-formatted decimal (`parse_decimal`). The compiler wrote the format as one anchored
    pattern that every engine's regex reads alike, and the texts a matching value is cleared of
    (currency symbols, blanks, a plus sign, the group separator); the decimal separator then becomes
    '.' and the text is cast to the field's decimal type. A value that does not match, or that the
    cast refuses (too many integer digits), is a coercion failure in a quality entity; outside it
    the run stops, naming the value. Portable SQL: replace, ||, the package's regex_match and casts. -#}
{% macro parse_decimal(expr, step, safe) -%}
  {{ return(adapter.dispatch('parse_decimal', 'bloomery')(expr, step, safe)) }}
{%- endmacro %}
{% macro default__parse_decimal(expr, step, safe) -%}
  {%- set ns = namespace(text=expr) -%}
  {%- for part in step.remove -%}
    {%- set ns.text = 'replace(' ~ ns.text ~ ', ' ~ bloomery.string_literal(part) ~ ", '')" -%}
  {%- endfor -%}
  {%- if step.decimal != '.' -%}
    {%- set ns.text = 'replace(' ~ ns.text ~ ', ' ~ bloomery.string_literal(step.decimal) ~ ", '.')" -%}
  {%- endif -%}
  {%- set matches = bloomery.regex_match(expr, step.pattern) | trim -%}
  {#- more fractional digits than the scale: a coercion failure unless the step opts into rounding
      (the cast then rounds a half away from zero, as numeric_cast's do) -#}
  {%- if step.get('excess') and step.get('round') is none -%}
    {%- set exact = '(' ~ matches ~ ' and not ' ~ (bloomery.regex_match(expr, step.excess) | trim) ~ ')' -%}
  {%- else -%}
    {%- set exact = matches -%}
  {%- endif -%}
  {%- if safe -%}case when {{ exact }} then {{ bloomery.safe_cast(ns.text, step.type) }} end
  {%- else -%}case when {{ exact }} then {{ bloomery.hard_cast(ns.text, step.type) }}
  {%- if exact != matches %} when {{ matches }} then {{ bloomery.lossy_cast_error(expr, step.type) }}{% endif %} when {{ expr }} is not null then {{ bloomery.decimal_format_error(expr, step) }} end
  {%- endif -%}
{%- endmacro %}
