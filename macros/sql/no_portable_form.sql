{#- What the `default__` of a macro renders when standard SQL cannot say it: a compile error that
    names what is missing and where an engine's form goes (macros/adapters/<engine>/; the layout
    test checks that every engine has one, directly or through its dispatch parent). -#}
{% macro no_portable_form(name, what) -%}
  {{ exceptions.raise_compiler_error("bloomery: " ~ what ~ " has no portable SQL form; implement <engine>__" ~ name ~ " (see macros/adapters/)") }}
{%- endmacro %}
