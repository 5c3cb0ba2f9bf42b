{#- A user's override of a bloomery macro, as a project would write one: the dispatch search order
    in dbt_project.yml puts this project before the package, so dbt renders this `duckdb__flags_size`
    instead of the package's. It counts the same way (`len`); the comment marks the compiled SQL so
    test_shop.py can prove the override was used. DuckDB only: a `default__` here would also
    win over the package's own engine implementations on PostgreSQL and Spark. -#}
{% macro duckdb__flags_size(expr) -%}len({{ expr }}) /* flags_size: bloomery_integration_tests override */{%- endmacro %}
