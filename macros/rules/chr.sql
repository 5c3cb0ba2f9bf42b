{#- The character of one Unicode code point, as SQL. `point` comes from the compiler (a charset
    rule's codepoints, checked there to be U+0000..U+10FFFF), never from spec text; it is still
    checked here, once for every engine, to be an integer in that range, since each engine's form
    writes it into the SQL as a number. -#}
{% macro chr(point) -%}
  {%- if point is not integer or point is boolean or point < 0 or point > 1114111 -%}
    {{ exceptions.raise_compiler_error("bloomery: chr() takes a Unicode code point (0 to 1114111), got " ~ point) }}
  {%- endif -%}
  {{ return(adapter.dispatch('chr', 'bloomery')(point)) }}
{%- endmacro %}
{#- ISO SQL's Unicode escape literal (U&'\+XXXXXX'): the character itself, no function. -#}
{% macro default__chr(point) -%}U&'\+{{ '%06X' % point }}'{%- endmacro %}
