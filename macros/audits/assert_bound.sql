{#- Field `assert:` clauses tell, they never route: these run with severity warn. -#}
{% test bloomery_assert_bound(model, column_name, bound, side) %}
select {{ adapter.quote(column_name) }}
from {{ model }}
where {{ adapter.quote(column_name) }} {{ '<' if side == 'min' else '>' }} {{ bloomery.bound_literal(bound, none) }}
{% endtest %}

{% test bloomery_assert_regex(model, column_name, regex) %}
select {{ adapter.quote(column_name) }}
from {{ model }}
where not ({{ bloomery.regex_match(adapter.quote(column_name), regex) }})
{% endtest %}
