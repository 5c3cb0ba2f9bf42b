{#- Casts from a typed value (the compiler marks them `from_type`), where the text round trip of
    safe_cast would judge the wrong thing: a date or timestamp is no JSON text, and bool -> int has
    no cast (via integer). None of these read bronze text, so none needs the guard. A numeric
    prints with its scale ('2.00' is no bigint text): a decimal reaches its int cast rounded to
    scale 0 (numeric_cast). Likewise round() of a bigint is a numeric that prints with decimals. -#}
{% macro postgres__transform_step(expr, step, safe) -%}
  {%- set source = step.get('from_type') -%}
  {%- set guarded = safe and step.get('marker', true) -%}
  {%- if step.op == 'cast' and step.get('via_int') -%}cast(cast({{ expr }} as integer) as bigint)
  {%- elif step.op == 'cast' and source and source != 'variant' and step.type.name == 'variant' -%}to_jsonb({{ expr }})
  {%- elif step.op == 'round' and step.type.name == 'int' -%}{{ bloomery._arith_cast('round(cast(' ~ expr ~ ' as numeric))', step.type, safe) }}
  {%- else -%}{{ bloomery.default__transform_step(expr, step, safe) }}
  {%- endif -%}
{%- endmacro %}

{#- The jsonb cast raises on a document that is not JSON: in a quality entity that document is a
    coercion failure instead (column_value skips the extraction for it). -#}
{% macro postgres__json_malformed(expr) -%}({{ expr }} is not null and not pg_input_is_valid({{ expr }}, 'jsonb')){%- endmacro %}

{% macro postgres__json_scalar(expr, path) -%}
  jsonb_path_query_first(({{ expr }})::jsonb, {{ bloomery.string_literal(path) }}) #>> '{}'
{%- endmacro %}

{% macro postgres__json_path(expr, path) -%}
  jsonb_path_query_first(({{ expr }})::jsonb, {{ bloomery.string_literal(path) }})
{%- endmacro %}

{#- split_part raises "field position must not be zero" on index 0, where DuckDB gives ''. -#}
{% macro postgres__split_part(expr, delimiter, index) -%}
  {%- if index | int == 0 -%}case when {{ expr }} is not null then '' end
  {%- else -%}split_part({{ expr }}, {{ bloomery.string_literal(delimiter) }}, {{ index }})
  {%- endif -%}
{%- endmacro %}

{#- regexp_substr (15+) takes the group, 0 being the whole match; no match is NULL here where
    DuckDB's regexp_extract gives '' (docs/dialects.md). -#}
{% macro postgres__regex_extract(expr, pattern, group) -%}
  regexp_substr({{ expr }}, {{ bloomery.string_literal(pattern) }}, 1, 1, '', {{ group }})
{%- endmacro %}

{#- strptime-style formats. to_timestamp/to_date raise on bad input and are lenient about what
    they do accept, so instead the format becomes an anchored regex (one group per directive) and
    the captured fields are reassembled as ISO text, which the guard then judges like any cast:
    '31/02/2021' matches the shape and still fails. Directives: %Y (1-4 digits) %m %d %H %M %S
    (1-2 digits) and %%; whitespace in the format matches any run of whitespace, and surrounding
    whitespace is ignored, as DuckDB's strptime does. Missing fields default to 1900-01-01 00:00:00. -#}
{% macro postgres__parse_format(expr, format, type, safe) -%}
  {%- set shape = bloomery._pg_format_shape(format) -%}
  {%- set m = '_bloomery_match.m' -%}
  {%- set f = shape.fields -%}
  {%- set parts = [
      ("lpad(" ~ m ~ "[" ~ f.Y ~ "], 4, '0')") if 'Y' in f else "'1900'", "'-'",
      (m ~ "[" ~ f.m ~ "]") if 'm' in f else "'1'", "'-'",
      (m ~ "[" ~ f.d ~ "]") if 'd' in f else "'1'", "' '",
      (m ~ "[" ~ f.H ~ "]") if 'H' in f else "'0'", "':'",
      (m ~ "[" ~ f.M ~ "]") if 'M' in f else "'0'", "':'",
      (m ~ "[" ~ f.S ~ "]") if 'S' in f else "'0'"] -%}
  {%- set iso = '_bloomery_parse.iso' -%}
  {%- set out = bloomery.type_name(type) -%}
  (select
  {%- if safe %}
    case when pg_input_is_valid({{ iso }}, 'timestamp') then cast(cast({{ iso }} as timestamp) as {{ out }}) end
  {%- else %}
    case when _bloomery_parse.x is not null and _bloomery_parse.m is null
         then cast(cast('value ' || _bloomery_parse.x || ' does not match the format ' || {{ bloomery.string_literal(format) }} as timestamp) as {{ out }})
         else cast(cast({{ iso }} as timestamp) as {{ out }}) end
  {%- endif %}
   from (select x, m, {{ parts | join(' || ') }} as iso
         from (select x, regexp_match(x, {{ bloomery.string_literal(shape.regex) }}) as m
               from (select ({{ expr }})::text as x) as _bloomery_value) as _bloomery_match) as _bloomery_parse)
{%- endmacro %}

{% macro _pg_format_shape(format) -%}
  {%- set shapes = {'Y': '([0-9]{1,4})', 'm': '([0-9]{1,2})', 'd': '([0-9]{1,2})',
                    'H': '([01]?[0-9]|2[0-3])', 'M': '([0-5]?[0-9])', 'S': '([0-5]?[0-9])'} -%}
  {%- set ns = namespace(regex='^[[:space:]]*', pct=false, groups=0) -%}
  {%- set fields = {} -%}
  {%- for ch in format -%}
    {%- if ns.pct -%}
      {%- set ns.pct = false -%}
      {%- if ch == '%' -%}{%- set ns.regex = ns.regex ~ '%' -%}
      {%- elif ch in shapes and ch not in fields -%}
        {%- set ns.groups = ns.groups + 1 -%}
        {%- do fields.update({ch: ns.groups}) -%}
        {%- set ns.regex = ns.regex ~ shapes[ch] -%}
      {%- else -%}
        {{ exceptions.raise_compiler_error("bloomery.parse_format: the format '" ~ format ~ "' uses %" ~ ch ~ (" twice" if ch in fields else "") ~ ", which the postgres port does not read; it reads %Y %m %d %H %M %S and %% (each at most once). Use ISO8601, or one of these directives.") }}
      {%- endif -%}
    {%- elif ch == '%' -%}{%- set ns.pct = true -%}
    {%- elif ch in ' \t\n\r' -%}{%- set ns.regex = ns.regex ~ '[[:space:]]+' -%}
    {%- elif ch.isalnum() -%}{%- set ns.regex = ns.regex ~ ch -%}
    {%- else -%}{%- set ns.regex = ns.regex ~ '\\' ~ ch -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if ns.pct -%}
    {{ exceptions.raise_compiler_error("bloomery.parse_format: the format '" ~ format ~ "' ends with a lone %; write %% for a percent sign.") }}
  {%- endif -%}
  {{ return({'regex': ns.regex ~ '[[:space:]]*$', 'fields': fields}) }}
{%- endmacro %}

{#- a timestamp without time zone read in `zone`, then shown in UTC. -#}
{% macro postgres__to_utc(expr, zone) -%}
  cast(({{ expr }} at time zone {{ bloomery.string_literal(zone) }}) at time zone 'UTC' as {{ bloomery.type_name({'name': 'timestamp'}) }})
{%- endmacro %}
