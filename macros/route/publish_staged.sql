{#- `mapping`, `source`: the entity's one mapping and its bronze relation, by name (a hook does
    not see the model's `entity`), for the verdict columns of the kept rows in the view. -#}
{% macro publish_staged(mapping, source, staged) -%}
  {{ return(adapter.dispatch('publish_staged', 'bloomery')(mapping, source, staged)) }}
{%- endmacro %}

{% macro default__publish_staged(mapping, source, staged) -%}select 1{%- endmacro %}

{% macro duckdb__publish_staged(mapping, source, staged) -%}
  {%- if not execute or bloomery.publish_mark() not in (model.compiled_code or '') -%}select 1{%- else -%}
  {%- set q = adapter.quote -%}
  {%- set rest = staged.incorporate(path={'identifier': staged.identifier ~ '_rest'}) -%}
  {%- set staged_cols = adapter.get_columns_in_relation(staged) -%}
  {#- the bronze payload, when the staged table carries one (not every entity keeps it), is the
      reject table's to keep -#}
  {%- set has_raw = '_bloomery_raw' in (staged_cols | map(attribute='name') | list) -%}
  {%- set entity_cols = adapter.get_columns_in_relation(this) -%}
  {%- set published = entity_cols | map(attribute='name') | list -%}
  {%- set by_name = {} -%}
  {%- for c in entity_cols %}{% do by_name.update({c.name: c.data_type}) %}{% endfor -%}
drop table if exists {{ rest }};
create table {{ rest }} as
select *{% if has_raw %} exclude ({{ q('_bloomery_raw') }}){% endif %} from {{ staged }} where {{ q('_bloomery_route') }} <> 'keep';
delete from {{ staged }} where {{ q('_bloomery_route') }} <> 'keep';
  {%- for c in staged_cols %}
  {%- if c.name not in published %}
alter table {{ staged }} drop column {{ q(c.name) }};
  {%- elif c.data_type | lower != by_name[c.name] | lower %}
alter table {{ staged }} alter column {{ q(c.name) }} type {{ by_name[c.name] }};
  {%- endif %}
  {%- endfor %}
alter table {{ staged }} add column {{ q('_quality_ok') }} boolean;
update {{ staged }} set {{ q('_quality_ok') }} = {{ bloomery.flags_size(q('_quality_flags')) }} = 0;
insert into {{ staged }} by name select * from {{ this }};
drop table {{ this }};
alter table {{ staged }} rename to {{ q(this.identifier) }};
create view {{ staged }} as
select
  {%- for c in staged_cols %}
  {%- if c.name in published %}
  {{ q(c.name) }}
  {%- elif c.name == '_bloomery_mapping' %}
  {{ bloomery.string_literal(mapping) }} as {{ q(c.name) }}
  {%- elif c.name == '_bloomery_source' %}
  {{ bloomery.string_literal(source) }} as {{ q(c.name) }}
  {%- elif c.name == '_bloomery_route' %}
  'keep' as {{ q(c.name) }}
  {%- elif c.name == '_bloomery_diverts' %}
  false as {{ q(c.name) }}
  {%- else %}
  cast(null as {{ c.data_type }}) as {{ q(c.name) }}
  {%- endif %}{{ "," if not loop.last }}
  {%- endfor %}
from {{ this }}
where {{ q('_source_row_id') }} is not null
union all by name
select *{% if has_raw %}, cast(null as json) as {{ q('_bloomery_raw') }}{% endif %} from {{ rest }}
  {%- endif -%}
{%- endmacro %}
