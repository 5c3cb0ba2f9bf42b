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
  {%- elif op == 'cast' and step.type.name in ('int', 'decimal') and step.get('from_type', 'string') in ('string', 'decimal') and not step.get('via_int') -%}
    {#- to a number from text or a decimal: a value that would lose digits is a failure, or rounded
        when the step opts in (numeric_cast) -#}
    {{- bloomery.numeric_cast(expr, step, safe and step.get('marker', true)) -}}
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

{% macro _arith_cast(expr, type, safe) -%}
  {%- if safe -%}{{ bloomery.safe_cast(expr, type) }}{%- else -%}{{ bloomery.hard_cast(expr, type) }}{%- endif -%}
{%- endmacro %}
