{#- A literal string holding the given codepoints, built from chr() so no character of the
    set ever needs escaping in SQL text. -#}
{% macro codepoint_string(points) -%}
  {%- for p in points -%}{{ bloomery.chr(p) }}{{ " || " if not loop.last }}{%- endfor -%}
{%- endmacro %}
