{#- Spark's types, casts, string literals and characters. -#}

{% macro spark__type_names() -%}
  {{ return({'string': 'string', 'int': 'bigint', 'bool': 'boolean', 'date': 'date',
             'timestamp': 'timestamp', 'variant': 'string', 'decimal': 'decimal'}) }}
{%- endmacro %}

{#- dbt-spark runs every session with spark.sql.ansi.enabled=false, where a plain CAST yields NULL
    instead of raising: produce-or-raise has to raise by itself. -#}
{% macro spark__hard_cast(expr, type) -%}
  {%- set t = bloomery.type_name(type) -%}
  coalesce(try_cast({{ expr }} as {{ t }}), case when {{ expr }} is not null then raise_error(concat('bloomery: value ', cast({{ expr }} as string), ' does not cast to {{ t }}')) end)
{%- endmacro %}

{#- Spark reads backslash as an escape inside string literals. -#}
{% macro spark__string_literal(value) -%}
  '{{ (value | string) | replace("\\", "\\\\") | replace("'", "\\'") }}'
{%- endmacro %}

{#- chr(n) is chr(n % 256) on Spark: write the character as a \u escape instead (a surrogate
    pair above the BMP; Spark strings are Java strings). -#}
{% macro spark__chr(point) -%}
  {%- set p = point | int -%}
  {%- if p > 65535 -%}
    {%- set v = p - 65536 -%}'\u{{ '%04x' % (55296 + v // 1024) }}\u{{ '%04x' % (56320 + v % 1024) }}'
  {%- else -%}'\u{{ '%04x' % p }}'{%- endif -%}
{%- endmacro %}

{#- Spark SQL has no NORMALIZE; Spark 4 ships ICU4J (for collations), whose static
    Normalizer.compose(text, false) is NFC, reachable through reflect(). It throws on NULL. -#}
{% macro spark__nfc_normalize(expr) -%}
  case when {{ expr }} is not null then reflect('com.ibm.icu.text.Normalizer', 'compose', {{ expr }}, false) end
{%- endmacro %}

{#- try_cast: NULL where the cast fails (with ANSI off a plain CAST would too; try_cast says so). -#}
{% macro spark__safe_cast(expr, type) -%}
  try_cast({{ expr }} as {{ bloomery.type_name(type) }})
{%- endmacro %}

{% macro spark__split_part(expr, delimiter, index) -%}{{ bloomery._split_part_call(expr, delimiter, index) }}{%- endmacro %}
