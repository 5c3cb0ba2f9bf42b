{#- The quality flag list as a Spark array, and the hashes and JSON built beside it. -#}

{% macro spark__flags_empty() -%}{{ return('cast(array() as array<string>)') }}{%- endmacro %}
{% macro spark__flags_of(name_literal) -%}{{ return('array(' ~ name_literal ~ ')') }}{%- endmacro %}
{% macro spark__flags_concat(left, right) -%}{{ return('concat(' ~ left ~ ', ' ~ right ~ ')') }}{%- endmacro %}

{% macro spark__flags_size(expr) -%}size({{ expr }}){%- endmacro %}

{% macro spark__flags_contain(expr, name) -%}array_contains({{ expr }}, {{ bloomery.string_literal(name) }}){%- endmacro %}

{% macro spark__flags_text(expr) -%}array_join({{ expr }}, ','){%- endmacro %}

{#- sha2 hashes the UTF-8 bytes of a string and returns lowercase hex. -#}
{% macro spark__sha256_hex(expr) -%}sha2({{ expr }}, 256){%- endmacro %}

{#- to_json drops null fields unless told otherwise; a struct keeps the (sorted) key order. -#}
{% macro spark__json_object(columns, prefix, column_prefix) -%}
  {%- if not columns -%}'{}'{%- else -%}
  to_json(named_struct({% for c in columns | sort %}{{ bloomery.string_literal(c) }}, {{ prefix }}{{ adapter.quote(column_prefix ~ c) }}{{ ", " if not loop.last }}{% endfor %}), map('ignoreNullFields', 'false'))
  {%- endif -%}
{%- endmacro %}

{#- get_json_object returns a string scalar unquoted (and an object or array as JSON text). Its
    path has no quoted member `$."name"`: that becomes the bracket form `$['name']`. -#}
{% macro spark__json_scalar(expr, path) -%}
  get_json_object({{ expr }}, {{ bloomery.string_literal(bloomery._spark_json_path(path)) }})
{%- endmacro %}

{% macro spark__json_path(expr, path) -%}
  get_json_object({{ expr }}, {{ bloomery.string_literal(bloomery._spark_json_path(path)) }})
{%- endmacro %}

{% macro _spark_json_path(path) -%}
  {%- if path.startswith('$."') and path.endswith('"') -%}
    {{ return("$['" ~ fromjson(path[2:]) ~ "']") }}
  {%- endif -%}
  {{ return(path) }}
{%- endmacro %}
