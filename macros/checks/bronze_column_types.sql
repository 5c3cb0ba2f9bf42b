{#- [column name, type name] of an existing relation, in the engine's order; [] when it is not
    there. Read from information_schema with the relation's parts as literals: dbt-postgres's
    get_columns_in_relation writes the relation's name into SQL as a bare string, and a bronze
    relation's name is spec data (see bronze_column_names). -#}
{% macro bronze_column_types(relation) -%}
  {{ return(adapter.dispatch('bronze_column_types', 'bloomery')(relation)) }}
{%- endmacro %}

{% macro default__bronze_column_types(relation) -%}
  {%- set fold = bloomery.bronze_names_fold_case() -%}
  {%- set lit = bloomery.string_literal -%}
  {%- set query -%}
    select column_name, data_type from information_schema.columns
    where {{ 'lower(table_schema) = lower(' ~ lit(relation.schema) ~ ')' if fold else 'table_schema = ' ~ lit(relation.schema) }}
      and {{ 'lower(table_name) = lower(' ~ lit(relation.identifier) ~ ')' if fold else 'table_name = ' ~ lit(relation.identifier) }}
      {%- if relation.database %}
      and {{ 'lower(table_catalog) = lower(' ~ lit(relation.database) ~ ')' if fold else 'table_catalog = ' ~ lit(relation.database) }}
      {%- endif %}
    order by ordinal_position
  {%- endset -%}
  {%- set out = [] -%}
  {%- for row in run_query(query).rows -%}{%- do out.append([row[0], row[1]]) -%}{%- endfor -%}
  {{ return(out) }}
{%- endmacro %}

{% macro _adapter_column_types(relation) -%}
  {%- if adapter.get_relation(database=relation.database, schema=relation.schema, identifier=relation.identifier) is none -%}
    {{ return([]) }}
  {%- endif -%}
  {%- set out = [] -%}
  {%- for c in adapter.get_columns_in_relation(relation) -%}{%- do out.append([c.name, c.data_type]) -%}{%- endfor -%}
  {{ return(out) }}
{%- endmacro %}
