{% macro bigquery__flags_empty() -%}{{ return('cast([] as array<string>)') }}{%- endmacro %}
{% macro bigquery__flags_of(name_literal) -%}{{ return('[' ~ name_literal ~ ']') }}{%- endmacro %}
{% macro bigquery__flags_concat(left, right) -%}{{ return('array_concat(' ~ left ~ ', ' ~ right ~ ')') }}{%- endmacro %}

{% macro bigquery__flags_size(expr) -%}array_length({{ expr }}){%- endmacro %}

{% macro bigquery__flags_contain(expr, name) -%}({{ bloomery.string_literal(name) }} in unnest({{ expr }})){%- endmacro %}

{% macro bigquery__flags_text(expr) -%}array_to_string({{ expr }}, ','){%- endmacro %}
