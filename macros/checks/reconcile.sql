{#- `<name>__reconcile`: two figures that must agree, compared key by key.

    Each side is `agg(entity.column) by keys` or `entity.column` (keyed by the entity's key).
    Keys from both sides are unioned and each side left-joined with IS NOT DISTINCT FROM, so a
    NULL key is one group and a key present on one side only compares against NULL — and fails:
    `within_tolerance` is COALESCE(|left - right| <= tolerance, FALSE). -#}
{% macro reconcile(check, left, right) -%}
  {{ return(adapter.dispatch('reconcile', 'bloomery')(check, left, right)) }}
{%- endmacro %}

{% macro default__reconcile(check, left, right) -%}
  {%- set q = adapter.quote -%}
  {%- set n = check['keys'] | length -%}
with left_side as (
  {{ bloomery._reconcile_side(check.left, left) }}
),
right_side as (
  {{ bloomery._reconcile_side(check.right, right) }}
),
all_keys as (
  select {% for i in range(n) %}k{{ i }}{{ ", " if not loop.last }}{% endfor %} from left_side
  union
  select {% for i in range(n) %}k{{ i }}{{ ", " if not loop.last }}{% endfor %} from right_side
)
select
  {%- for k in check['keys'] %}
  all_keys.k{{ loop.index0 }} as {{ q(k) }},
  {%- endfor %}
  l.value as left_value,
  r.value as right_value,
  abs(l.value - r.value) as difference,
  coalesce(abs(l.value - r.value) <= {{ check.tolerance }}, false) as within_tolerance
from all_keys
left join left_side as l on {% for i in range(n) %}l.k{{ i }} is not distinct from all_keys.k{{ i }}{{ " and " if not loop.last }}{% endfor %}
left join right_side as r on {% for i in range(n) %}r.k{{ i }} is not distinct from all_keys.k{{ i }}{{ " and " if not loop.last }}{% endfor %}
{%- endmacro %}

{% macro _reconcile_side(side, relation) -%}
  {%- set q = adapter.quote -%}
  {%- set value = (side.agg ~ '(' ~ q(side.column) ~ ')') if side.agg else q(side.column) -%}
  select {% for b in side.by %}{{ q(b) }} as k{{ loop.index0 }}, {% endfor %}{{ value }} as value
  from {{ relation }}
  {%- if side.get('member') %}
  where {{ bloomery.not_the_unknown_member(q(side.member)) }}
  {%- endif %}
  {%- if side.agg %}
  group by {% for b in side.by %}{{ q(b) }}{{ ", " if not loop.last }}{% endfor %}
  {%- endif %}
{%- endmacro %}

{% test bloomery_reconcile(model) %}
select * from {{ model }} where not within_tolerance
{% endtest %}
