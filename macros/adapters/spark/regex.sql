{#- Regex on Spark: Java's engine, read through the portable subset. -#}

{#- Java regex; `rlike` is a substring search like the others, hence the mandatory anchors. The
    pattern is first given RE2's meaning (`_spark_java_regex`). -#}
{% macro spark__regex_match(expr, pattern) -%}
  ({{ expr }} rlike {{ bloomery.string_literal(bloomery._spark_java_regex(pattern)) }})
{%- endmacro %}

{#- Where Java reads the portable subset differently from RE2 (measured by
    test_regex_portability.py), spell RE2's meaning out:
      `$`   Java also matches before a final line terminator ('x\n' ~ '^x$'): `\z`, the very end;
      `.`   Java also excludes \r, U+0085, U+2028, U+2029: `[^\n]`, as RE2;
      `\s`  Java's includes the vertical tab: `[\t\n\f\r ]`, as RE2 (and `\S` its complement; inside
            a class `[^...]` nests, which Java reads as a union).
    Nested classes and `&&` mean other things in Java; the subset refuses both. -#}
{% macro _spark_java_regex(pattern) -%}
  {%- set space = '\\t\\n\\f\\r ' -%}
  {%- set ns = namespace(out='', escaped=false, in_class=false) -%}
  {%- for ch in pattern -%}
    {%- if ns.escaped -%}
      {%- set ns.escaped = false -%}
      {%- if ch == 's' -%}{%- set ns.out = ns.out ~ (space if ns.in_class else '[' ~ space ~ ']') -%}
      {%- elif ch == 'S' -%}{%- set ns.out = ns.out ~ '[^' ~ space ~ ']' -%}
      {%- else -%}{%- set ns.out = ns.out ~ '\\' ~ ch -%}{%- endif -%}
    {%- elif ch == '\\' -%}{%- set ns.escaped = true -%}
    {%- elif ns.in_class -%}
      {%- if ch == ']' -%}{%- set ns.in_class = false -%}{%- endif -%}
      {%- set ns.out = ns.out ~ ch -%}
    {%- elif ch == '[' -%}{%- set ns.in_class = true -%}{%- set ns.out = ns.out ~ ch -%}
    {%- elif ch == '.' -%}{%- set ns.out = ns.out ~ '[^\\n]' -%}
    {%- elif ch == '$' -%}{%- set ns.out = ns.out ~ '\\z' -%}
    {%- else -%}{%- set ns.out = ns.out ~ ch -%}{%- endif -%}
  {%- endfor -%}
  {{ return(ns.out) }}
{%- endmacro %}

{% macro spark__regex_extract(expr, pattern, group) -%}{{ bloomery._regexp_extract_call(expr, pattern, group) }}{%- endmacro %}
