{% macro snowflake__flags_empty() -%}{{ return('array_construct()') }}{%- endmacro %}
{% macro snowflake__flags_of(name_literal) -%}{{ return('array_construct(' ~ name_literal ~ ')') }}{%- endmacro %}
{% macro snowflake__flags_concat(left, right) -%}{{ return('array_cat(' ~ left ~ ', ' ~ right ~ ')') }}{%- endmacro %}

{% macro snowflake__flags_size(expr) -%}array_size({{ expr }}){%- endmacro %}

{% macro snowflake__flags_contain(expr, name) -%}array_contains(to_variant({{ bloomery.string_literal(name) }}), {{ expr }}){%- endmacro %}

{% macro snowflake__flags_text(expr) -%}array_to_string({{ expr }}, ','){%- endmacro %}
