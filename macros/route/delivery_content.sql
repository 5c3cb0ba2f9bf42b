{#- A delivery's content, as the ledger records it beside its identity: the sha256 (lowercase
    hex) of the bronze row's named columns, the payload a reject row keeps (`raw_columns`: the
    columns the mapping reads and its `unmapped` ones, redacted columns left out, so the ledger
    holds no digest of what the spec redacts), in name order, each as length-prefixed text or
    `N` for NULL, so no two rows spell the same text. An identity already judged arriving with
    other content is a loader reusing it (docs/design.md "A delivery's content"), which the
    ingestion-metadata audit reports. `prefix` qualifies the columns. -#}
{% macro delivery_content(mapping, prefix='') -%}
  {{ return(adapter.dispatch('delivery_content', 'bloomery')(mapping, prefix)) }}
{%- endmacro %}

{% macro default__delivery_content(mapping, prefix) -%}
  {%- set s = bloomery.type_name({'name': 'string'}) -%}
  {%- set parts = [] -%}
  {%- for c in mapping.raw_columns | sort(case_sensitive=true) if c not in bloomery.vocabulary().metadata -%}
    {%- set v = 'cast(' ~ prefix ~ adapter.quote(c) ~ ' as ' ~ s ~ ')' -%}
    {%- do parts.append("coalesce('L' || cast(length(" ~ v ~ ") as " ~ s ~ ") || ':' || " ~ v ~ ", 'N')") -%}
  {%- endfor -%}
  {{ bloomery.sha256_hex(parts | join(' || ') if parts else "''") }}
{%- endmacro %}
