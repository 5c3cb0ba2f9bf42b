{% macro duckdb__json_malformed(expr) -%}({{ expr }} is not null and not json_valid({{ expr }})){%- endmacro %}
