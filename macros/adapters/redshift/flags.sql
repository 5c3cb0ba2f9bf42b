{#- No arrays in plain SQL: the comma-string fallback. Names in lexicographic order, the leading
    comma trimmed, '' when clean; membership is a search for ',name,' in ',flags,'. -#}
{% macro redshift__flag_list(items) -%}
  {%- if not items -%}cast('' as varchar(65535)){%- else -%}
  ltrim({% for item in items %}case when {{ item[1] }} then {{ bloomery.string_literal(',' ~ item[0]) }} else '' end{{ " || " if not loop.last }}{% endfor %}, ',')
  {%- endif -%}
{%- endmacro %}

{% macro redshift__flags_size(expr) -%}
  (case when {{ expr }} = '' then 0 else regexp_count({{ expr }}, ',') + 1 end)
{%- endmacro %}

{% macro redshift__flags_contain(expr, name) -%}
  (strpos(',' || {{ expr }} || ',', {{ bloomery.string_literal(',' ~ name ~ ',') }}) > 0)
{%- endmacro %}

{% macro redshift__flags_text(expr) -%}{{ expr }}{%- endmacro %}

{#- Two comma lists one after the other (postgres__flags_concat's array_cat, which Redshift
    would inherit, has no array to work on); a comma only between two non-empty lists. -#}
{% macro redshift__flags_concat(left, right) -%}
  {{ return("(case when " ~ left ~ " = '' then " ~ right ~ " when " ~ right ~ " = '' then " ~ left
            ~ " else " ~ left ~ " || ',' || " ~ right ~ " end)") }}
{%- endmacro %}
