{#- Every trino override of the package in one place: the engine's differences, and why. -#}

{% macro trino__iso_timestamp_text(expr) -%}replace({{ expr }}, 'T', ' '){%- endmacro %}

