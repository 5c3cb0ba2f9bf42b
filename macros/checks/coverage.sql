{#- Coverage: every row of the relationship's `to` entity has at least `min` dependent rows in
    the `from` entity (this model). Counts admitted rows on both sides, as every consumer of the
    entities sees them; the reserved Unknown member is not a row of the parent. -#}
{#- member: the parent's column holding its Unknown member ('__unknown__'), if it has one; the
    row is told by that value, since a parent without ingestion metadata has no other mark. -#}
{% test bloomery_coverage(model, parent, pairs, min=1, member=none) %}
  {%- set pairs, min, member = bloomery.argument(pairs), bloomery.argument(min), bloomery.argument(member) -%}
  {%- set q = adapter.quote -%}
select
  {%- for pair in pairs %}
  p.{{ q(pair[1]) }},
  {%- endfor %}
  count(c.{{ q(pairs[0][0]) }}) as matched
from {{ parent }} as p
left join {{ model }} as c
  on {% for pair in pairs %}c.{{ q(pair[0]) }} = p.{{ q(pair[1]) }}{{ " and " if not loop.last }}{% endfor %}
{%- if member %}
where {{ bloomery.not_the_unknown_member('p.' ~ q(member)) }}
{%- endif %}
group by {% for pair in pairs %}p.{{ q(pair[1]) }}{{ ", " if not loop.last }}{% endfor %}
having count(c.{{ q(pairs[0][0]) }}) < {{ min }}
{% endtest %}
