{#- The mark the model's statement carries on the publishing path: the post-hook is rendered once
    the entity's table exists, when `is_incremental()` no longer tells a first build apart, so it
    reads the decision the statement was compiled with. -#}
{% macro publish_mark() -%}/* bloomery: the staged table is published */{%- endmacro %}
