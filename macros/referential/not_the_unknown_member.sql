{#- Its own file because the split (quality_split), the mart, coverage and reconcile all leave the
    Unknown member out with it. -#}
{#- True unless `expr` (a parent's member column) holds the reserved Unknown member. -#}
{% macro not_the_unknown_member(expr) -%}
  coalesce(cast({{ expr }} as {{ bloomery.type_name({'name': 'string'}) }}) <> {{ bloomery.string_literal(bloomery.vocabulary().unknown_member) }}, true)
{%- endmacro %}
