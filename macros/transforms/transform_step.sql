{#- One transform step applied to a SQL expression. `step` is the IR the compiler wrote after
    type-checking the chain (transforms/chain.py); `safe` is true in entities that joined the
    quality system, where casts yield the coercion-failure marker (NULL) instead of raising. -#}
{% macro transform_step(expr, step, safe) -%}
  {{ return(adapter.dispatch('transform_step', 'bloomery')(expr, step, safe)) }}
{%- endmacro %}

{% macro default__transform_step(expr, step, safe) -%}
  {%- set op = step.op -%}
  {%- if op in ('trim', 'upper', 'lower') -%}{{ op }}({{ expr }})
  {%- elif op == 'split_part' -%}{{ bloomery.split_part(expr, step.delimiter, step.index) }}
  {%- elif op == 'regex_extract' -%}{{ bloomery.regex_extract(expr, step.pattern, step.group) }}
  {%- elif op == 'strip_prefix' -%}
    {%- set n = step.value | length -%}
    case when substr({{ expr }}, 1, {{ n }}) = {{ bloomery.string_literal(step.value) }} then substr({{ expr }}, {{ n + 1 }}) else {{ expr }} end
  {%- elif op == 'strip_suffix' -%}
    {%- set n = step.value | length -%}
    case when length({{ expr }}) >= {{ n }} and substr({{ expr }}, length({{ expr }}) - {{ n - 1 }}) = {{ bloomery.string_literal(step.value) }} then substr({{ expr }}, 1, length({{ expr }}) - {{ n }}) else {{ expr }} end
  {%- elif op == 'concat' -%}({{ expr }} || {{ bloomery.string_literal(step.value) }})
  {%- elif op == 'enum_map' -%}
    case {{ expr }}{% for pair in step.pairs %} when {{ bloomery.string_literal(pair[0]) }} then {{ bloomery.string_literal(pair[1]) }}{% endfor %} else {{ expr }} end
  {%- elif op == 'cast' -%}
    {#- to timestamp (`parse_ts: ISO8601` or a plain cast) both read text as text_to_timestamp does -#}
    {%- if safe and step.get('marker', true) -%}{{ bloomery.safe_cast(expr, step.type) }}{%- else -%}{{ bloomery.hard_cast(expr, step.type) }}{%- endif -%}
  {%- elif op == 'int_to_bool' -%}({{ expr }} <> 0)
  {%- elif op == 'parse_format' -%}{{ bloomery.parse_format(expr, step.format, step.type, safe) }}
  {%- elif op == 'parse_decimal' -%}{{ bloomery.parse_decimal(expr, step, safe) }}
  {%- elif op == 'to_utc' -%}{{ bloomery.to_utc(expr, step.zone) }}
  {%- elif op == 'coalesce' -%}coalesce({{ expr }}, {{ bloomery.typed_literal(step.literal, step.type) }})
  {%- elif op == 'nullif' -%}nullif({{ expr }}, {{ bloomery.typed_literal(step.literal, step.type) }})
  {%- elif op == 'json_path' -%}{{ bloomery.json_path(expr, step.path) }}
  {#- arithmetic results are cast to the width the compiler derived; a value that outgrows it
      is a coercion failure in a quality entity, like any cast -#}
  {%- elif op in ('multiply', 'divide') -%}
    {%- set sign = '*' if op == 'multiply' else '/' -%}
    {{ bloomery._arith_cast('(' ~ expr ~ ' ' ~ sign ~ ' ' ~ step.literal ~ ')', step.type, safe) }}
  {%- elif op == 'round' -%}{{ bloomery._arith_cast('round(' ~ expr ~ ', ' ~ step.digits ~ ')', step.type, safe) }}
  {%- elif op == 'abs' -%}abs({{ expr }})
  {%- else -%}{{ exceptions.raise_compiler_error("bloomery.transform_step: unknown op " ~ op ~ "; recompile the specs with this version of bloomery") }}
  {%- endif -%}
{%- endmacro %}

{% macro split_part(expr, delimiter, index) -%}
  {{ return(adapter.dispatch('split_part', 'bloomery')(expr, delimiter, index)) }}
{%- endmacro %}
{% macro default__split_part(expr, delimiter, index) -%}
  split_part({{ expr }}, {{ bloomery.string_literal(delimiter) }}, {{ index }})
{%- endmacro %}

{% macro regex_extract(expr, pattern, group) -%}
  {{ return(adapter.dispatch('regex_extract', 'bloomery')(expr, pattern, group)) }}
{%- endmacro %}
{% macro default__regex_extract(expr, pattern, group) -%}
  regexp_extract({{ expr }}, {{ bloomery.string_literal(pattern) }}, {{ group }})
{%- endmacro %}

{#- An explicit-format parse. In a quality entity a value that does not parse is a coercion
    failure like any cast, never an aborted run. -#}
{% macro parse_format(expr, format, type, safe) -%}
  {{ return(adapter.dispatch('parse_format', 'bloomery')(expr, format, type, safe)) }}
{%- endmacro %}
{% macro default__parse_format(expr, format, type, safe) -%}
  {%- set fn = 'try_strptime' if safe else 'strptime' -%}
  cast({{ fn }}({{ expr }}, {{ bloomery.string_literal(format) }}) as {{ bloomery.type_name(type) }})
{%- endmacro %}

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
  {%- if safe -%}case when {{ matches }} then {{ bloomery.safe_cast(ns.text, step.type) }} end
  {%- else -%}case when {{ matches }} then {{ bloomery.hard_cast(ns.text, step.type) }} when {{ expr }} is not null then {{ bloomery.decimal_format_error(expr, step) }} end
  {%- endif -%}
{%- endmacro %}

{#- Raise, naming the value and the format: a cast of the message itself, which no engine reads as
    a number (produce-or-raise outside the quality system). Typed as the step's decimal. -#}
{% macro decimal_format_error(expr, step) -%}
  {{ return(adapter.dispatch('decimal_format_error', 'bloomery')(expr, step)) }}
{%- endmacro %}
{% macro default__decimal_format_error(expr, step) -%}
  cast('bloomery: value ' || {{ expr }} || {{ bloomery.string_literal(' does not match the decimal format of ' ~ step.sample) }} as {{ bloomery.type_name(step.type) }})
{%- endmacro %}

{% macro to_utc(expr, zone) -%}
  {{ return(adapter.dispatch('to_utc', 'bloomery')(expr, zone)) }}
{%- endmacro %}
{% macro default__to_utc(expr, zone) -%}
  cast(({{ expr }} at time zone {{ bloomery.string_literal(zone) }}) at time zone 'UTC' as {{ bloomery.type_name({'name': 'timestamp'}) }})
{%- endmacro %}

{% macro json_path(expr, path) -%}
  {{ return(adapter.dispatch('json_path', 'bloomery')(expr, path)) }}
{%- endmacro %}
{% macro default__json_path(expr, path) -%}
  json_extract({{ expr }}, {{ bloomery.string_literal(path) }})
{%- endmacro %}

{% macro _arith_cast(expr, type, safe) -%}
  {%- if safe -%}{{ bloomery.safe_cast(expr, type) }}{%- else -%}{{ bloomery.hard_cast(expr, type) }}{%- endif -%}
{%- endmacro %}
