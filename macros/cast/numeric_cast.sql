{#- A cast to int or decimal(p,s) of text or of a decimal: the one place a value could lose digits
    (a fraction into an int, more fractional digits than the scale). Such a value is a coercion
    failure, never silently rounded or truncated: NULL in a quality entity (the cast's failure
    marker then fires `coercible`), a raised error outside it. A step that opts into rounding
    (`rounding: half_away_from_zero`, the IR's `round`) rounds instead, a half away from zero, as
    `round()` and the decimal casts of every engine here do.

    Text is read as a decimal number on every engine, an int through decimal(38,0): `12.0` is 12
    (PostgreSQL's bigint input refused it, DuckDB rounded `12.7` to 13, Spark truncated it to 12).
    Whether plain text loses digits is read from its spelling, exactly (any length): a non-zero
    digit past the scale-th after the point. Trailing zeros lose nothing (`12.70` is 12.7). A
    spelling with an exponent (`1.25e1`) is judged on its value, read at the widest scale its
    integer digits leave (decimal(38, 38 - (p - s))); the engine's decimal grammar decides what
    else it reads (blanks around, a sign, `5.`, `.5`).

    A decimal is judged on its value: `round(x, s) <> x`. The rounded value is what is cast, so
    with the opt-in every engine rounds the same way (Spark's decimal-to-bigint cast truncates). -#}
{% macro numeric_cast(expr, step, safe) -%}
  {{ return(adapter.dispatch('numeric_cast', 'bloomery')(expr, step, safe)) }}
{%- endmacro %}

{% macro default__numeric_cast(expr, step, safe) -%}
  {%- set t = step.type -%}
  {%- set scale = (t.scale | int) if t.name == 'decimal' else 0 -%}
  {%- set rounds = step.get('round') is not none -%}
  {%- if step.get('from_type') == 'decimal' -%}
    {%- set rounded = 'round(' ~ expr ~ ', ' ~ scale ~ ')' -%}
    {%- set value = bloomery.safe_cast(rounded, t) if safe else bloomery.hard_cast(rounded, t) -%}
    {%- set loses = '(' ~ rounded ~ ' <> ' ~ expr ~ ')' -%}
  {%- else -%}
    {%- if t.name == 'int' -%}
      {%- set whole = {'name': 'decimal', 'precision': 38, 'scale': 0} -%}
      {%- set value = bloomery.safe_cast(bloomery.safe_cast(expr, whole), t) if safe
                      else bloomery.hard_cast(bloomery.hard_cast(expr, whole), t) -%}
    {%- else -%}
      {%- set value = bloomery.safe_cast(expr, t) if safe else bloomery.hard_cast(expr, t) -%}
    {%- endif -%}
    {%- set loses = bloomery.text_loses_digits(expr, t) | trim -%}
  {%- endif -%}
  {%- if rounds -%}{{ value }}
  {%- elif safe -%}case when not {{ loses }} then {{ value }} end
  {%- else -%}case when {{ loses }} then {{ bloomery.lossy_cast_error(expr, t) }} else {{ value }} end
  {%- endif -%}
{%- endmacro %}
