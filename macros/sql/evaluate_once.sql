{#- Closes a subquery whose computed columns the query around it reads many times, so that each
    is computed once per row. PostgreSQL pulls a plain subquery up into the query that reads it
    and then evaluates a column's expression again at every use: the staged query's typed values
    (a guarded timestamp parse is dozens of operators) were computed once per rule reading them,
    54 µs a row at 20,000 rows (docs/performance.md). `offset 0` keeps the subquery apart. Other
    engines compute a shared expression once themselves, and BigQuery refuses a bare OFFSET. -#}
{% macro evaluate_once() -%}
  {{ return(adapter.dispatch('evaluate_once', 'bloomery')()) }}
{%- endmacro %}

{% macro default__evaluate_once() -%}{{ return('') }}{%- endmacro %}
