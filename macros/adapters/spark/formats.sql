{#- Parsing formats and timestamps: strptime directives and POSIX classes in Java's terms. -#}

{#- strptime directives become a Java datetime pattern (one letter: 1 or 2 digits, like %d);
    surrounding blanks are ignored, as DuckDB's strptime does. -#}
{% macro spark__parse_format(expr, format, type, safe) -%}
  {%- set value = 'try_to_timestamp(trim(' ~ expr ~ '), ' ~ bloomery.string_literal(bloomery._spark_datetime_pattern(format)) ~ ')' -%}
  {%- set out = bloomery.type_name(type) -%}
  {%- if safe -%}cast({{ value }} as {{ out }})
  {%- else -%}cast(coalesce({{ value }}, case when {{ expr }} is not null then raise_error(concat('bloomery: value ', {{ expr }}, ' does not match the format ', {{ bloomery.string_literal(format) }})) end) as {{ out }})
  {%- endif -%}
{%- endmacro %}

{% macro _spark_datetime_pattern(format) -%}
  {%- set letters = {'Y': 'y', 'm': 'M', 'd': 'd', 'H': 'H', 'M': 'm', 'S': 's'} -%}
  {%- set ns = namespace(out='', pct=false) -%}
  {%- for ch in format -%}
    {%- if ns.pct -%}
      {%- set ns.pct = false -%}
      {%- if ch == '%' -%}{%- set ns.out = ns.out ~ '%' -%}
      {%- elif ch in letters -%}{%- set ns.out = ns.out ~ letters[ch] -%}
      {%- else -%}
        {{ exceptions.raise_compiler_error("bloomery.parse_format: the format '" ~ format ~ "' uses %" ~ ch ~ ", which the spark port does not read; it reads %Y %m %d %H %M %S and %%.") }}
      {%- endif -%}
    {%- elif ch == '%' -%}{%- set ns.pct = true -%}
    {%- elif ch == "'" -%}{%- set ns.out = ns.out ~ "''" -%}
    {%- elif ch.isalpha() -%}{%- set ns.out = ns.out ~ "'" ~ ch ~ "'" -%}
    {%- else -%}{%- set ns.out = ns.out ~ ch -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(ns.out) }}
{%- endmacro %}

{#- A plain CAST does not raise with ANSI off (dbt-spark's sessions): raise_error, naming the value. -#}
{% macro spark__decimal_format_error(expr, step) -%}
  cast(raise_error(concat('bloomery: value ', {{ expr }}, {{ bloomery.string_literal(' does not match the decimal format of ' ~ step.sample) }})) as {{ bloomery.type_name(step.type) }})
{%- endmacro %}

{#- The same for a number that would lose digits (numeric_cast). -#}
{% macro spark__lossy_cast_error(expr, type) -%}
  cast(raise_error(concat('bloomery: value ', cast({{ expr }} as string), {{ bloomery.string_literal(' loses digits in a cast to ' ~ bloomery.type_name(type) ~ '; opt into rounding with `rounding: half_away_from_zero`') }})) as {{ bloomery.type_name(type) }})
{%- endmacro %}

{#- The same for a text outside the grammar of numeric text (numeric_cast). -#}
{% macro spark__not_a_number_error(expr, type) -%}
  cast(raise_error(concat('bloomery: value ', cast({{ expr }} as string), {{ bloomery.string_literal(' is not a number (digits with one point, a sign, an exponent) in a cast to ' ~ bloomery.type_name(type)) }})) as {{ bloomery.type_name(type) }})
{%- endmacro %}

{#- Wall-clock time in `zone` to UTC. -#}
{% macro spark__to_utc(expr, zone) -%}
  to_utc_timestamp({{ expr }}, {{ bloomery.string_literal(zone) }})
{%- endmacro %}

{#- text_to_timestamp's pattern in Java: `[[:space:]]` is no POSIX class there (a nested class of
    its letters); `\s` is the same ASCII set as RE2's [[:space:]]. -#}
{% macro spark__iso_timestamp_group(expr, name) -%}
  {%- set p = bloomery.iso_timestamp_pattern(blank='\\s') -%}
  regexp_extract({{ expr }}, {{ bloomery.string_literal(p.regex) }}, {{ p.groups[name] }})
{%- endmacro %}

{#- A plain CAST does not raise with ANSI off (dbt-spark's sessions): raise_error, naming the value. -#}
{% macro spark__timestamp_cast_error(expr) -%}
  cast(raise_error(concat('bloomery: value ', {{ expr }}, ' is not an ISO 8601 timestamp')) as timestamp)
{%- endmacro %}
