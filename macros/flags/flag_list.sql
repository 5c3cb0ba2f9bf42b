{#- The flag column: the names of the rules a row fired, in lexicographic order, never NULL.
    `items` is a list of [rule name, verdict sql] already sorted by name.

    The portable form is a chain of concatenations, one per rule: `case when <verdict> then
    [name] else [] end`, folded left. Engines differ only in how they spell an empty list, a list
    of one name and a concatenation, so those three are dispatched (flags_empty, flags_of,
    flags_concat, each in its own file beside this one) and no engine copies the chain. DuckDB has a cheaper form of its own
    (macros/adapters/duckdb/flags.sql); Redshift, without arrays, a string (macros/adapters/redshift/flags.sql). -#}
{% macro flag_list(items) -%}
  {{ return(adapter.dispatch('flag_list', 'bloomery')(items)) }}
{%- endmacro %}

{% macro default__flag_list(items) -%}
  {%- set empty = bloomery.flags_empty() -%}
  {%- if not items -%}{{ empty }}{%- else -%}
  {%- set parts = [] -%}
  {%- for item in items -%}
    {%- do parts.append('case when ' ~ item[1] ~ ' then ' ~ bloomery.flags_of(bloomery.string_literal(item[0])) ~ ' else ' ~ empty ~ ' end') -%}
  {%- endfor -%}
  {%- set ns = namespace(acc=parts[0]) -%}
  {%- for p in parts[1:] -%}{%- set ns.acc = bloomery.flags_concat(ns.acc, p) -%}{%- endfor -%}
  {{ ns.acc }}
  {%- endif -%}
{%- endmacro %}
