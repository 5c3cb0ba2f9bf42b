{#- The regular expression of one redacted member of compact JSON text, for Redshift's
    json_has_any_key and json_without_keys (each in its own file). -#}
{% macro _redshift_member(keys) -%}
  {%- set names = [] -%}
  {%- for k in keys | map('lower') | unique | sort -%}{%- do names.append(modules.re.escape(k)) -%}{%- endfor -%}
  {{ return('"(?:' ~ names | join('|') ~ ')":(?:"(?:[^"\\\\]|\\\\.)*"|[^,}]*)') }}
{%- endmacro %}
