{#- A mapped column: extraction from bronze, then its transform chain. Returns {"value": sql, "failures": [sql, ...]}: one failure condition per
    coercion point (a cast whose input was not NULL and whose output is), so `coercible` is
    judged at the cast itself and a later `coalesce` can never hide a failed cast. Arithmetic
    steps count too: their result is cast to a fixed width it can outgrow. -#}
{% macro column_value(column, safe) -%}
  {#- a namespace: Jinja's `set` inside a loop does not outlive the iteration -#}
  {%- set ns = namespace(value=bloomery.source_value(column.source_column, column.json_path)) -%}
  {%- set failures = [] -%}
  {%- if safe and column.json_path -%}
    {#- a document that does not parse is a coercion failure of every column read from it, never
        an aborted run: the extraction is skipped for it (the engine's would raise) -#}
    {%- set malformed = bloomery.json_malformed(bloomery.source_value(column.source_column, none)) | trim -%}
    {%- if malformed -%}
      {%- set ns.value = 'case when ' ~ malformed ~ ' then null else ' ~ ns.value ~ ' end' -%}
      {%- do failures.append('(' ~ malformed ~ ')') -%}
    {%- endif -%}
  {%- endif -%}
  {%- for step in column.steps -%}
    {%- set next = bloomery.transform_step(ns.value, step, safe) -%}
    {%- if safe and step.op == 'json_path' and step.get('text') -%}
      {#- the same for a document a `json_path` step parses: NULL and a coercion failure -#}
      {%- set malformed = bloomery.json_malformed(ns.value) | trim -%}
      {%- if malformed -%}
        {%- set next = 'case when ' ~ malformed ~ ' then null else ' ~ next ~ ' end' -%}
        {%- do failures.append('(' ~ malformed ~ ')') -%}
      {%- endif -%}
    {%- endif -%}
    {%- if (step.op == 'cast' and step.get('marker', true)) or step.op in ('parse_format', 'parse_decimal', 'multiply', 'divide', 'round') -%}
      {%- do failures.append('(' ~ ns.value ~ ' is not null and ' ~ next ~ ' is null)') -%}
    {%- endif -%}
    {%- set ns.value = next -%}
  {%- endfor -%}
  {{ return({'value': ns.value, 'failures': failures}) }}
{%- endmacro %}

{#- Bronze text for a path: `$.col` reads the column, `$.col.a.b` a JSON scalar inside it. On
    replay the same path is read back out of the reject row's `raw` object. -#}
{% macro source_value(source_column, json_path, origin='bronze') -%}
  {%- if origin == 'raw' -%}
    {%- set base = bloomery.json_scalar(adapter.quote('raw'), '$.' ~ tojson(source_column)) -%}
  {%- else -%}
    {%- set base = 'cast(' ~ adapter.quote(source_column) ~ ' as ' ~ bloomery.type_name({'name': 'string'}) ~ ')' -%}
  {%- endif -%}
  {%- if json_path -%}{{ return(bloomery.json_scalar(base, json_path)) }}{%- else -%}{{ return(base) }}{%- endif -%}
{%- endmacro %}

{#- True when a non-NULL document is not JSON, on engines whose extraction raises on one; empty
    (no guard) where the extraction itself yields NULL. -#}
{% macro json_malformed(expr) -%}
  {{ return(adapter.dispatch('json_malformed', 'bloomery')(expr)) }}
{%- endmacro %}
{% macro default__json_malformed(expr) -%}{%- endmacro %}
{% macro duckdb__json_malformed(expr) -%}({{ expr }} is not null and not json_valid({{ expr }})){%- endmacro %}

{% macro json_scalar(expr, path) -%}
  {{ return(adapter.dispatch('json_scalar', 'bloomery')(expr, path)) }}
{%- endmacro %}
{% macro default__json_scalar(expr, path) -%}
  json_extract_string({{ expr }}, {{ bloomery.string_literal(path) }})
{%- endmacro %}
