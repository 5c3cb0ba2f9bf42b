{#- `mapping`, `source`: the entity's one mapping and its bronze relation, by name (a hook does
    not see the model's `entity`), for the verdict columns of the kept rows in the view. -#}
{% macro publish_staged(mapping, source, staged) -%}
  {{ return(adapter.dispatch('publish_staged', 'bloomery')(mapping, source, staged)) }}
{%- endmacro %}

{% macro default__publish_staged(mapping, source, staged) -%}select 1{%- endmacro %}

{#- The publishing post-hook of an engine that renames inside the node's transaction (DuckDB,
    PostgreSQL: `<engine>__publish_staged` renders this; the steps and why are in
    publishes_staged.sql). Every column list is spelled from the catalogue, so no engine's own
    shorthand (`select * exclude`, `insert ... by name`, `union all by name`) is needed. Nothing
    here rewrites the staged table: a DELETE of the rows not kept and a DROP COLUMN of the
    verdict columns only mark rows and columns dead (PostgreSQL) or rewrite the touched row
    groups (DuckDB), and no column changes type: the staged table already carries the declared
    types and `_quality_ok` (stage_route.sql). -#}
{% macro _publish_in_place(mapping, source, staged) -%}
  {%- if not execute or bloomery.publish_mark() not in (model.compiled_code or '') -%}select 1{%- else -%}
  {%- set q = adapter.quote -%}
  {%- set rest = staged.incorporate(path={'identifier': staged.identifier ~ '_rest'}) -%}
  {%- set staged_cols = adapter.get_columns_in_relation(staged) -%}
  {%- set entity_cols = adapter.get_columns_in_relation(this) -%}
  {%- set published = entity_cols | map(attribute='name') | list -%}
  {%- set staged_types = {} -%}
  {%- for c in staged_cols %}{% do staged_types.update({c.name: c.data_type}) %}{% endfor -%}
  {%- for c in entity_cols if (staged_types.get(c.name) or '') | lower != c.data_type | lower -%}
    {#- the entity's statement selects these columns from the staged table as they are, so they
        cannot differ unless a column was computed there again: renaming would publish the wrong type -#}
    {%- do exceptions.raise_compiler_error("bloomery: " ~ this ~ "." ~ c.name ~ " is " ~ c.data_type ~ " but "
          ~ staged ~ " holds " ~ (staged_types.get(c.name) or 'no such column') ~ ": the staged table cannot be published") -%}
  {%- endfor -%}
  {#- the bronze payload, when the staged table carries one (not every entity keeps it), is the
      reject table's to keep: the rest table leaves it out -#}
  {%- set narrow = staged_cols | rejectattr('name', 'equalto', '_bloomery_raw') | map(attribute='name') | list -%}
drop table if exists {{ rest }};
create table {{ rest }} as
select {% for c in narrow %}{{ q(c) }}{{ ", " if not loop.last }}{% endfor %}
from {{ staged }} where {{ q('_bloomery_route') }} <> 'keep';
delete from {{ staged }} where {{ q('_bloomery_route') }} <> 'keep';
  {%- for c in staged_cols if c.name not in published %}
alter table {{ staged }} drop column {{ q(c.name) }};
  {%- endfor %}
insert into {{ staged }} ({% for c in published %}{{ q(c) }}{{ ", " if not loop.last }}{% endfor %})
select {% for c in published %}{{ q(c) }}{{ ", " if not loop.last }}{% endfor %} from {{ this }};
drop table {{ this }};
alter table {{ staged }} rename to {{ q(this.identifier) }};
create view {{ staged }} as
select
  {%- for c in staged_cols %}
  {%- if c.name in published %}
  e.{{ q(c.name) }}
  {%- elif c.name == '_bloomery_mapping' %}
  cast({{ bloomery.string_literal(mapping) }} as {{ c.data_type }}) as {{ q(c.name) }}
  {%- elif c.name == '_bloomery_source' %}
  cast({{ bloomery.string_literal(source) }} as {{ c.data_type }}) as {{ q(c.name) }}
  {%- elif c.name == '_bloomery_route' %}
  cast('keep' as {{ c.data_type }}) as {{ q(c.name) }}
  {%- elif c.name == '_bloomery_diverts' %}
  false as {{ q(c.name) }}
  {%- else %}
  cast(null as {{ c.data_type }}) as {{ q(c.name) }}
  {%- endif %}{{ "," if not loop.last }}
  {%- endfor %}
from {{ this }} as e
where e.{{ q('_source_row_id') }} is not null
union all
select
  {%- for c in staged_cols %}
  {% if c.name in narrow %}{{ q(c.name) }}{% else %}cast(null as {{ c.data_type }}) as {{ q(c.name) }}{% endif %}{{ "," if not loop.last }}
  {%- endfor %}
from {{ rest }}
  {%- endif -%}
{%- endmacro %}
