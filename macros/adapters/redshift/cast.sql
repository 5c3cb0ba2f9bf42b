{#- TEXT is VARCHAR(256) on Redshift: a reject payload needs the widest VARCHAR. -#}
{% macro redshift__type_names() -%}
  {{ return({'string': 'varchar(65535)', 'int': 'bigint', 'bool': 'boolean', 'date': 'date',
             'timestamp': 'timestamp', 'variant': 'varchar(65535)', 'decimal': 'numeric'}) }}
{%- endmacro %}

{#- Redshift has TRY_CAST (no pg_input_is_valid). -#}
{% macro redshift__safe_cast(expr, type) -%}
  try_cast({{ expr }} as {{ bloomery.type_name(type) }})
{%- endmacro %}

{#- text_to_timestamp: the generic form, not the PostgreSQL port's (no regexp_match arrays, no
    pg_input_is_valid; TRY_CAST judges the rewritten value). REGEXP_SUBSTR returns one group (`e`),
    the first, so only the field read captures; `p` reads the pattern as PCRE, which has `(?:`. -#}
{% macro redshift__text_to_timestamp(expr, safe) -%}
  {{ return(bloomery.default__text_to_timestamp(expr, safe)) }}
{%- endmacro %}

{% macro redshift__iso_timestamp_group(expr, name) -%}
  {%- set p = bloomery.iso_timestamp_pattern(capture=name) -%}
  regexp_substr({{ expr }}, {{ bloomery.string_literal(p.regex) }}, 1, 1, 'pe')
{%- endmacro %}

{% macro redshift__timestamp_minus_minutes(ts, minutes) -%}
  dateadd(minute, -{{ minutes }}, {{ ts }})
{%- endmacro %}
