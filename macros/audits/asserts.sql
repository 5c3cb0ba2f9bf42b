{#- Field `assert:` clauses tell, they never route: these run with severity warn. Their values
    arrive as inert JSON (bloomery.argument) and reach SQL only as literals; the column only
    through adapter.quote (dbt's own not_null / accepted_values write both as they are). -#}
{% test bloomery_assert_bound(model, column_name, bound, side) %}
  {%- set bound = bloomery.argument(bound) -%}
select {{ adapter.quote(column_name) }}
from {{ model }}
where {{ adapter.quote(column_name) }} {{ '<' if bloomery.argument(side) == 'min' else '>' }} {{ bloomery.bound_literal(bound, none) }}
{% endtest %}

{% test bloomery_assert_regex(model, column_name, regex) %}
select {{ adapter.quote(column_name) }}
from {{ model }}
where not ({{ bloomery.regex_match(adapter.quote(column_name), bloomery.argument(regex)) }})
{% endtest %}

{% test bloomery_assert_enum(model, column_name, values, column_type) %}
  {%- set column_type = bloomery.argument(column_type) -%}
select {{ adapter.quote(column_name) }}
from {{ model }}
where {{ adapter.quote(column_name) }} is not null
  and {{ adapter.quote(column_name) }} not in (
  {%- for v in bloomery.argument(values) %}{{ bloomery.typed_literal(v, column_type) }}{{ ", " if not loop.last }}{% endfor -%}
  )
{% endtest %}

{% test bloomery_assert_not_null(model, column_name) %}
select {{ adapter.quote(column_name) }}
from {{ model }}
where {{ adapter.quote(column_name) }} is null
{% endtest %}
