{% macro postgres__flags_empty() -%}{{ return('cast(array[] as text[])') }}{%- endmacro %}
{% macro postgres__flags_of(name_literal) -%}{{ return('array[' ~ name_literal ~ ']::text[]') }}{%- endmacro %}
{% macro postgres__flags_concat(left, right) -%}{{ return('array_cat(' ~ left ~ ', ' ~ right ~ ')') }}{%- endmacro %}

{#- array_length of an empty array is NULL, not 0. -#}
{% macro postgres__flags_size(expr) -%}coalesce(array_length({{ expr }}, 1), 0){%- endmacro %}

{#- PostgreSQL's quantified comparison over an array. -#}
{% macro postgres__flags_contain(expr, name) -%}({{ bloomery.string_literal(name) }} = any({{ expr }})){%- endmacro %}

{% macro postgres__flags_text(expr) -%}array_to_string({{ expr }}, ','){%- endmacro %}
