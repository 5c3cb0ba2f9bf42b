{% macro trino__flags_empty() -%}{{ return('cast(array[] as array(varchar))') }}{%- endmacro %}
{% macro trino__flags_of(name_literal) -%}{{ return('array[' ~ name_literal ~ ']') }}{%- endmacro %}
{% macro trino__flags_concat(left, right) -%}{{ return('concat(' ~ left ~ ', ' ~ right ~ ')') }}{%- endmacro %}

{% macro trino__flags_size(expr) -%}cardinality({{ expr }}){%- endmacro %}

{% macro trino__flags_contain(expr, name) -%}contains({{ expr }}, {{ bloomery.string_literal(name) }}){%- endmacro %}

{% macro trino__flags_text(expr) -%}array_join({{ expr }}, ','){%- endmacro %}
