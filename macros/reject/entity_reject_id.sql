{#- The reject_id of a staged row (`prefix`: its alias with a dot): a merged entity's row hashes
    its own bronze relation, so the same source row id in two relations is two reject rows. -#}
{% macro entity_reject_id(entity, prefix='') -%}
  {%- set q = adapter.quote -%}
  {%- if entity.mappings | length == 1 -%}
    {{ return(bloomery.reject_id(entity.mappings[0].source, prefix ~ q('_source_row_id'))) }}
  {%- endif -%}
  {%- set out = ['case ' ~ prefix ~ q('_bloomery_source')] -%}
  {%- for m in entity.mappings -%}
    {%- do out.append('when ' ~ bloomery.string_literal(m.source) ~ ' then ' ~ bloomery.reject_id(m.source, prefix ~ q('_source_row_id'))) -%}
  {%- endfor -%}
  {{ return(out | join(' ') ~ ' end') }}
{%- endmacro %}
