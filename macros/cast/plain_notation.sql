{#- A text in plain notation: an exponent spelling of the grammar is rewritten (`1.25e-3` is
    `0.00125`, `-12e2` is `-1200`), any other text is returned as it is. Every engine then reads
    the same plain text, and whether it loses digits is read from its spelling, exactly: the
    engines' own readers of an exponent spelling round it first (`1e-400` read as 0, so no loss
    was seen) or misread a long mantissa (DuckDB reads `0.0000000001e10` into decimal(8,1) as 0.0).
    The mantissa's digits (integer digits `i`, fraction digits `f`) get the point `len(i) + e`
    digits in, padded with zeros (lpad of the empty text: Trino has no string repeat). The counts
    are cast to integer: DuckDB's length is a bigint, which its lpad and PostgreSQL's refuse.
    The exponent is read only under the grammar's own test, where it is at most three digits.
    Each test is anchored at both ends (Snowflake's REGEXP_LIKE matches the whole string). -#}
{% macro plain_notation(expr) -%}
  {%- set i = 'coalesce(' ~ bloomery.regex_extract(expr, '([0-9]*)[.eE]', 1) ~ ", '')" -%}
  {%- set f = 'coalesce(' ~ bloomery.regex_extract(expr, '[.]([0-9]*)', 1) ~ ", '')" -%}
  {%- set e = 'cast(' ~ bloomery.regex_extract(expr, '[eE]([+-]?[0-9]+)', 1) ~ ' as integer)' -%}
  {%- set digits = '(' ~ i ~ ' || ' ~ f ~ ')' -%}
  {%- set width = 'cast(length(' ~ digits ~ ') as integer)' -%}
  {%- set point = '(cast(length(' ~ i ~ ') as integer) + ' ~ e ~ ')' -%}
  (case when {{ bloomery.regex_match(expr, bloomery.number_pattern('required')) }} then
     (case when {{ bloomery.regex_match(expr, '^[ \\t\\n\\r]*-[0-9.eE+\\t\\n\\r -]*$') }} then '-' else '' end) ||
     (case when {{ point }} <= 0 then '0.' || lpad('', -{{ point }}, '0') || {{ digits }}
           when {{ point }} >= {{ width }} then {{ digits }} || lpad('', {{ point }} - {{ width }}, '0')
           else substr({{ digits }}, 1, {{ point }}) || '.' || substr({{ digits }}, {{ point }} + 1) end)
   else {{ expr }} end)
{%- endmacro %}
