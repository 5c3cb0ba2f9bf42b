{#- True when the JSON object `expr` has a top-level key in `keys` (any letter case). -#}
{% macro json_has_any_key(expr, keys) -%}
  {{ return(adapter.dispatch('json_has_any_key', 'bloomery')(expr, keys)) }}
{%- endmacro %}

{#- DuckDB: `raw` is JSON. json_each walks the members in order (`id`). -#}
{% macro default__json_has_any_key(expr, keys) -%}
  list_has_any(list_transform(json_keys({{ expr }}), lambda k: lower(k)), [{{ bloomery._redacted_list(keys) }}])
{%- endmacro %}

{#- Redshift: `raw` is JSON text (json_serialize), and SUPER has no way to drop a key chosen at run
    time, so the member is cut from the text. In compact JSON an unescaped `"` only delimits a
    string, so `"key":` right after `{` or `,` starts a member (of the object, or of a nested one:
    bronze columns are scalars there); its value is a string or a scalar. A member after a comma
    goes with its comma, a first member with the comma that follows it. -#}
{% macro redshift__json_has_any_key(expr, keys) -%}
  regexp_instr({{ expr }}, {{ bloomery.string_literal('[{,]' ~ bloomery._redshift_member(keys)) }}, 1, 1, 0, 'ip') > 0
{%- endmacro %}
