{#- DuckDB's flag list: one list of every rule's name or NULL, the NULLs filtered out. The
    portable chain of concatenations (macros/flags/flag_list.sql) costs a list per rule per row
    (about 1 s of the 10M bench's staged query). `lambda x:` is DuckDB 1.3's syntax (2.0 refuses
    `->`); assert_engine_supported refuses an older DuckDB. -#}
{% macro duckdb__flag_list(items) -%}
  {%- if not items -%}cast([] as {{ bloomery.type_name({'name': 'string'}) }}[])
  {%- else -%}
  list_filter([{% for item in items %}case when {{ item[1] }} then {{ bloomery.string_literal(item[0]) }} end{{ ", " if not loop.last }}{% endfor %}], lambda x: x is not null)
  {%- endif -%}
{%- endmacro %}

{% macro duckdb__flags_size(expr) -%}len({{ expr }}){%- endmacro %}

{% macro duckdb__flags_contain(expr, name) -%}list_contains({{ expr }}, {{ bloomery.string_literal(name) }}){%- endmacro %}

{% macro duckdb__flags_text(expr) -%}array_to_string({{ expr }}, ','){%- endmacro %}
