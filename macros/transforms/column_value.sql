{#- A mapped column: extraction from bronze, then its transform chain. Returns {"value": sql, "failures": [sql, ...]}: one failure condition per
    coercion point (a cast whose input was not NULL and whose output is), so `coercible` is
    judged at the cast itself and a later `coalesce` can never hide a failed cast. Arithmetic
    steps count too: their result is cast to a fixed width it can outgrow. When the chain ends with
    a coercion step, `last_input` is that step's input: its failure is then the last entry of
    `failures`, and equals `(<last_input> is not null and <value> is null)`, which a query that has
    computed the value can test on the column instead of casting again. Otherwise `last_input` is
    none. -#}
{% macro column_value(column, safe) -%}
  {#- a namespace: Jinja's `set` inside a loop does not outlive the iteration -#}
  {%- set ns = namespace(value=bloomery.source_value(column.source_column, column.json_path), last_input=none) -%}
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
      {#- a document a `json_path` step parses is not extracted either, but its NULL is the
          step's own (json_path is nullifying, like a path it does not find): no coercion failure -#}
      {%- set malformed = bloomery.json_malformed(ns.value) | trim -%}
      {%- if malformed -%}
        {%- set next = 'case when ' ~ malformed ~ ' then null else ' ~ next ~ ' end' -%}
      {%- endif -%}
    {%- endif -%}
    {%- if (step.op == 'cast' and step.get('marker', true)) or step.op in ('parse_format', 'parse_decimal', 'multiply', 'divide', 'round') -%}
      {%- do failures.append('(' ~ ns.value ~ ' is not null and ' ~ next ~ ' is null)') -%}
      {%- if loop.last -%}{%- set ns.last_input = ns.value -%}{%- endif -%}
    {%- endif -%}
    {%- set ns.value = next -%}
  {%- endfor -%}
  {{ return({'value': ns.value, 'failures': failures, 'last_input': ns.last_input}) }}
{%- endmacro %}
