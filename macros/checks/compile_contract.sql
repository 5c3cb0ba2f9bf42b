{#- What this package reads from `bloomery compile`: the IR version of the entity literals the
    generated models carry, and the package's own version (the compiler of the same version writes
    that IR). Bump `ir_version` with IR_VERSION in python/bloomery/resolve/ir.py
    (tests/unit/emit/test_compile_check.py holds them equal). -#}
{% macro compile_contract() -%}
  {{ return({'ir_version': 5, 'version': '0.1.0'}) }}
{%- endmacro %}
