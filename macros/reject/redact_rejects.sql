{#- Post-hook of `<entity>__reject`: the entity's `quarantine.redact` applied to the rows already in
    the table. A row is written with the redaction in force when it was diverted, so widening
    `redact` would otherwise leave the newly redacted columns in every earlier reject's `raw` until
    a full refresh, which the reject table refuses (`full_refresh: false`). This removes them on
    the next ordinary build instead.

    `redact` is the IR's list: top-level bronze column names (a redacted JSONPath covers its whole
    top-level column, see the compiler), matched case-insensitively as the compiler matches them
    (`Notes` and `notes` are one column on DuckDB and for unquoted names everywhere). Only rows
    whose `raw` still holds such a key are rewritten, so once they are clean a build costs one scan
    of the key lists and writes nothing. `key_values` needs nothing: it holds key columns, which are
    read by the mapping and therefore can never be redacted (RedactionConflict).

    Spark's parquet reject table has no UPDATE: its rebuild (spark__reject_rows) applies the same
    expression to the earlier rows it copies, and the post-hook renders nothing. -#}
{% macro redact_rejects(redact, relation=none) -%}
  {{ return(adapter.dispatch('redact_rejects', 'bloomery')(redact, relation)) }}
{%- endmacro %}

{% macro default__redact_rejects(redact, relation) -%}
  {%- if redact -%}
  {%- set target_relation = relation if relation is not none else this -%}
  {%- set raw = adapter.quote('raw') -%}
update {{ target_relation }}
set {{ raw }} = {{ bloomery.json_without_keys(target_relation ~ '.' ~ raw, redact) }}
where {{ bloomery.json_has_any_key(raw, redact) }}
  {%- endif -%}
{%- endmacro %}

{#- The redacted names as a SQL list of lowercase literals: `'a', 'b'`. -#}
{% macro _redacted_list(keys) -%}
  {%- for k in keys | map('lower') | unique | sort %}{{ bloomery.string_literal(k) }}{{ ", " if not loop.last }}{% endfor -%}
{%- endmacro %}

{#- True when the JSON object `expr` has a top-level key in `keys` (any letter case). -#}
{% macro json_has_any_key(expr, keys) -%}
  {{ return(adapter.dispatch('json_has_any_key', 'bloomery')(expr, keys)) }}
{%- endmacro %}

{#- The JSON object `expr` without its top-level keys in `keys` (any letter case), the other
    members (values and order) as they were. -#}
{% macro json_without_keys(expr, keys) -%}
  {{ return(adapter.dispatch('json_without_keys', 'bloomery')(expr, keys)) }}
{%- endmacro %}

{#- DuckDB: `raw` is JSON. json_each walks the members in order (`id`). -#}
{% macro default__json_has_any_key(expr, keys) -%}
  list_has_any(list_transform(json_keys({{ expr }}), lambda k: lower(k)), [{{ bloomery._redacted_list(keys) }}])
{%- endmacro %}

{% macro default__json_without_keys(expr, keys) -%}
  (select coalesce(json_group_object(m.key, m.value), '{}')
   from (select * from json_each({{ expr }}) order by id) as m
   where lower(m.key) not in ({{ bloomery._redacted_list(keys) }}))
{%- endmacro %}

{#- PostgreSQL: `raw` is json (not jsonb: it would reorder the sorted keys), so the members are
    re-aggregated in their original order. -#}
{% macro postgres__json_has_any_key(expr, keys) -%}
  exists (select 1 from json_object_keys({{ expr }}) as m(k) where lower(m.k) in ({{ bloomery._redacted_list(keys) }}))
{%- endmacro %}

{% macro postgres__json_without_keys(expr, keys) -%}
  (select coalesce(json_object_agg(m.k, m.v order by m.n), '{}'::json)
   from json_each({{ expr }}) with ordinality as m(k, v, n)
   where lower(m.k) not in ({{ bloomery._redacted_list(keys) }}))
{%- endmacro %}

{#- Spark (and Databricks): `raw` is JSON text. Through a variant map, so values keep their JSON
    types (a string map would turn 1 into "1" and an object into text). -#}
{% macro spark__json_has_any_key(expr, keys) -%}
  exists(json_object_keys({{ expr }}), k -> lower(k) in ({{ bloomery._redacted_list(keys) }}))
{%- endmacro %}

{% macro spark__json_without_keys(expr, keys) -%}
  to_json(map_filter(variant_get(parse_json({{ expr }}), '$', 'map<string,variant>'), (k, v) -> lower(k) not in ({{ bloomery._redacted_list(keys) }})))
{%- endmacro %}

{#- Folded into the parquet rebuild (spark__reject_rows); Databricks' Delta table takes the UPDATE. -#}
{% macro spark__redact_rejects(redact, relation) -%}{%- endmacro %}

{% macro databricks__redact_rejects(redact, relation) -%}
  {{ return(bloomery.default__redact_rejects(redact, relation)) }}
{%- endmacro %}

{#- Trino: `raw` is JSON text (json_format); a map of JSON values keeps each member's type. -#}
{% macro trino__json_has_any_key(expr, keys) -%}
  any_match(map_keys(cast(json_parse({{ expr }}) as map(varchar, json))), k -> lower(k) in ({{ bloomery._redacted_list(keys) }}))
{%- endmacro %}

{% macro trino__json_without_keys(expr, keys) -%}
  json_format(cast(map_filter(cast(json_parse({{ expr }}) as map(varchar, json)), (k, v) -> lower(k) not in ({{ bloomery._redacted_list(keys) }})) as json))
{%- endmacro %}

{#- Snowflake: `raw` is JSON text (to_json); object_pick keeps the listed keys. -#}
{% macro snowflake__json_has_any_key(expr, keys) -%}
  array_size(filter(object_keys(parse_json({{ expr }})), k -> lower(k::string) in ({{ bloomery._redacted_list(keys) }}))) > 0
{%- endmacro %}

{% macro snowflake__json_without_keys(expr, keys) -%}
  to_json(object_pick(parse_json({{ expr }}), filter(object_keys(parse_json({{ expr }})), k -> lower(k::string) not in ({{ bloomery._redacted_list(keys) }}))))
{%- endmacro %}

{#- BigQuery: `raw` is JSON text (to_json_string); rebuilt from its kept keys and values. -#}
{% macro bigquery__json_has_any_key(expr, keys) -%}
  exists (select 1 from unnest(json_keys(parse_json({{ expr }}), 1)) as k where lower(k) in ({{ bloomery._redacted_list(keys) }}))
{%- endmacro %}

{% macro bigquery__json_without_keys(expr, keys) -%}
  (select to_json_string(json_object(array_agg(k order by o), array_agg(parse_json({{ expr }})[k] order by o)))
   from unnest(json_keys(parse_json({{ expr }}), 1)) as k with offset as o
   where lower(k) not in ({{ bloomery._redacted_list(keys) }}))
{%- endmacro %}

{#- Redshift: `raw` is JSON text (json_serialize), and SUPER has no way to drop a key chosen at run
    time, so the member is cut from the text. In compact JSON an unescaped `"` only delimits a
    string, so `"key":` right after `{` or `,` starts a member (of the object, or of a nested one:
    bronze columns are scalars there); its value is a string or a scalar. A member after a comma
    goes with its comma, a first member with the comma that follows it. -#}
{% macro redshift__json_has_any_key(expr, keys) -%}
  regexp_instr({{ expr }}, {{ bloomery.string_literal('[{,]' ~ bloomery._redshift_member(keys)) }}, 1, 1, 0, 'ip') > 0
{%- endmacro %}

{% macro redshift__json_without_keys(expr, keys) -%}
  regexp_replace(regexp_replace({{ expr }}, {{ bloomery.string_literal(',' ~ bloomery._redshift_member(keys)) }}, '', 1, 'ip'), {{ bloomery.string_literal('^\\{' ~ bloomery._redshift_member(keys) ~ ',?') }}, '{', 1, 'ip')
{%- endmacro %}

{% macro _redshift_member(keys) -%}
  {%- set names = [] -%}
  {%- for k in keys | map('lower') | unique | sort -%}{%- do names.append(modules.re.escape(k)) -%}{%- endfor -%}
  {{ return('"(?:' ~ names | join('|') ~ ')":(?:"(?:[^"\\\\]|\\\\.)*"|[^,}]*)') }}
{%- endmacro %}
