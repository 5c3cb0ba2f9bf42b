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

{#- The regular expression of one redacted member of compact JSON text, for Redshift's
    json_has_any_key and json_without_keys (above). -#}
{% macro _redshift_member(keys) -%}
  {%- set names = [] -%}
  {%- for k in keys | map('lower') | unique | sort -%}{%- do names.append(modules.re.escape(k)) -%}{%- endfor -%}
  {{ return('"(?:' ~ names | join('|') ~ ')":(?:"(?:[^"\\\\]|\\\\.)*"|[^,}]*)') }}
{%- endmacro %}
