{#- The one grammar of numeric text, the same on every engine (docs/quality-rules.md, "Lossy
    casts"): blanks (space, tab, LF, CR) around, a sign, digits with at most one point and at least
    one digit (`5.`, `.5`), and an exponent of at most three digits after its leading zeros. Each
    engine's own numeric input reads more, and reads it differently (PostgreSQL 16+ reads `0x1F`,
    `0o17`, `0b101`, `1_000` and `NaN`; DuckDB reads `1_000`): whatever the pattern leaves out is
    a coercion failure everywhere. Three exponent digits reach past every decimal(38,s) both ways
    (a non-zero value below 1e-38 loses digits; one above 1e38 overflows). Plain groups, `[0-9]`
    and the subset's `\t\n\r`: read alike by RE2, Java and POSIX ARE. `exponent`: 'optional', or
    'required' (an exponent spelling only). -#}
{% macro number_pattern(exponent='optional') -%}
  {%- set blanks = '[ \\t\\n\\r]*' -%}
  {{ return('^' ~ blanks ~ '[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?0*[0-9]{1,3})'
            ~ ('?' if exponent == 'optional' else '') ~ blanks ~ '$') }}
{%- endmacro %}
