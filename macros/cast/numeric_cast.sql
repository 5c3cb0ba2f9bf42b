{#- A cast to int or decimal(p,s) of text or of a decimal: the one place a value could lose digits
    (a fraction into an int, more fractional digits than the scale). Such a value is a coercion
    failure, never silently rounded or truncated: NULL in a quality entity (the cast's failure
    marker then fires `coercible`), a raised error outside it. A step that opts into rounding
    (`rounding: half_away_from_zero`, the IR's `round`) rounds instead, a half away from zero, as
    `round()` and the decimal casts of every engine here do.

    Text must be a number of the one grammar (number_pattern: blanks, a sign, digits with one
    point, an exponent of at most three digits); anything else (`0x1F`, `1_000`, `NaN`,
    `Infinity`, which PostgreSQL's numeric input reads) is a coercion failure on every engine.
    A number is read in plain notation (plain_notation rewrites an exponent spelling), as a
    decimal on every engine, an int through decimal(38,0): `12.0` is 12 (PostgreSQL's bigint
    input refused it, DuckDB rounded `12.7` to 13, Spark truncated it to 12). Whether it loses
    digits is read from that plain spelling, exactly, at any length (text_loses_digits), so a
    non-zero value too small for any scale (`1e-400`) loses digits rather than reading as 0.

    A decimal is judged on its value: `round(x, s) <> x`. The rounded value is what is cast, so
    with the opt-in every engine rounds the same way (Spark's decimal-to-bigint cast truncates). -#}
{% macro numeric_cast(expr, step, safe) -%}
  {{ return(adapter.dispatch('numeric_cast', 'bloomery')(expr, step, safe)) }}
{%- endmacro %}

{% macro default__numeric_cast(expr, step, safe) -%}
  {%- set t = step.type -%}
  {%- set scale = (t.scale | int) if t.name == 'decimal' else 0 -%}
  {%- set rounds = step.get('round') is not none -%}
  {%- set number = none -%}
  {%- if step.get('from_type') == 'decimal' -%}
    {%- set rounded = 'round(' ~ expr ~ ', ' ~ scale ~ ')' -%}
    {%- set value = bloomery.safe_cast(rounded, t) if safe else bloomery.hard_cast(rounded, t) -%}
    {%- set loses = '(' ~ rounded ~ ' <> ' ~ expr ~ ')' -%}
  {%- else -%}
    {%- set number = bloomery.regex_match(expr, bloomery.number_pattern()) | trim -%}
    {%- set plain = bloomery.plain_notation(expr) | trim -%}
    {%- if t.name == 'int' -%}
      {%- set whole = {'name': 'decimal', 'precision': 38, 'scale': 0} -%}
      {%- set value = bloomery.safe_cast(bloomery.safe_cast(plain, whole), t) if safe
                      else bloomery.hard_cast(bloomery.hard_cast(plain, whole), t) -%}
    {%- else -%}
      {%- set value = bloomery.safe_cast(plain, t) if safe else bloomery.hard_cast(plain, t) -%}
    {%- endif -%}
    {%- set loses = bloomery.text_loses_digits(plain, t) | trim -%}
  {%- endif -%}
  {%- if safe -%}
    {%- set keeps = ([number] if number else []) + ([] if rounds else ['not ' ~ loses]) -%}
    {%- if keeps -%}case when {{ keeps | join(' and ') }} then {{ value }} end{%- else -%}{{ value }}{%- endif -%}
  {%- else -%}
    {%- set raises = ([(number, 'nan')] if number else []) + ([] if rounds else [(loses, 'loss')]) -%}
    {%- if raises -%}case
      {%- for test, why in raises %} when {% if why == 'nan' %}not {{ test }} then {{ bloomery.not_a_number_error(expr, t) }}{% else %}{{ test }} then {{ bloomery.lossy_cast_error(expr, t) }}{% endif %}
      {%- endfor %} else {{ value }} end
    {%- else -%}{{ value }}{%- endif -%}
  {%- endif -%}
{%- endmacro %}
