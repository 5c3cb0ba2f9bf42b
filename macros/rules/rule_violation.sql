{#- The violation predicate of one resolved rule, over the staged row's transformed columns.
    The caller wraps it in coalesce(..., false): a rule fires only when the predicate is SQL
    TRUE, so a NULL-involved comparison (UNKNOWN) never fires. Only `not_null` and `coercible`
    look at NULLs on purpose. -#}
{% macro rule_violation(rule) -%}
  {%- set predicate = adapter.dispatch('rule_violation', 'bloomery')(rule) -%}
  {#- a merged entity's field rule judges only the rows of the mappings that declare it -#}
  {%- if rule.get('mappings') -%}
    {%- set names = [] -%}
    {%- for m in rule.mappings %}{% do names.append(bloomery.string_literal(m) | trim) %}{% endfor -%}
    {{ return('(' ~ adapter.quote('_bloomery_mapping') ~ ' in (' ~ names | join(', ') ~ ') and (' ~ predicate ~ '))') }}
  {%- endif -%}
  {{ return(predicate) }}
{%- endmacro %}

{% macro default__rule_violation(rule) -%}
  {%- set col = adapter.quote(rule.column) if rule.column else none -%}
  {%- set kind = rule.rule -%}
  {%- if kind == 'coercible' -%}{{ adapter.quote('_bloomery_cast_failed__' ~ rule.column) }}
  {%- elif kind == 'not_null' -%}{{ col }} is null
  {%- elif kind == 'range' -%}
    {%- set parts = [] -%}
    {%- if rule.min is defined and rule.min is not none -%}{%- do parts.append(col ~ ' < ' ~ bloomery.bound_literal(rule.min, rule.column_type)) -%}{%- endif -%}
    {%- if rule.max is defined and rule.max is not none -%}{%- do parts.append(col ~ ' > ' ~ bloomery.bound_literal(rule.max, rule.column_type)) -%}{%- endif -%}
    ({{ parts | join(' or ') }})
  {%- elif kind == 'length' -%}
    {%- set parts = [] -%}
    {%- if rule.min is defined -%}{%- do parts.append('length(' ~ col ~ ') < ' ~ rule.min) -%}{%- endif -%}
    {%- if rule.max is defined -%}{%- do parts.append('length(' ~ col ~ ') > ' ~ rule.max) -%}{%- endif -%}
    ({{ parts | join(' or ') }})
  {%- elif kind == 'pattern' -%}not ({{ bloomery.regex_match(col, rule.regex) }})
  {%- elif kind in ('in_enum', 'in_set') -%}
    {{ col }} not in ({% for v in rule['values'] %}{{ v if v is number else bloomery.string_literal(v) }}{{ ", " if not loop.last }}{% endfor %})
  {%- elif kind == 'unique' -%}
    {#- counted among dedupe's survivors only: the rows it drops share the staged relation -#}
    ({{ col }} is not null and count(*) over (partition by {{ adapter.quote('_bloomery_rank') }} = 1, {% for p in bloomery.unique_slice(rule) %}{{ p }}, {% endfor %}{{ col }}) > 1)
  {%- elif kind == 'normalize' -%}{{ bloomery.nfc_normalize(col) }} <> {{ col }}
  {%- elif kind == 'charset' -%}
    {%- set chars = bloomery.codepoint_string(rule.allow if rule.allow is defined else rule.forbid) -%}
    {%- if rule.allow is defined -%}length(translate({{ col }}, {{ chars }}, '')) > 0
    {%- else -%}length(translate({{ col }}, {{ chars }}, '')) < length({{ col }}){%- endif -%}
  {%- elif kind == 'expression' -%}
    {#- the parts joined once: SQL text as the compiler wrote it, a number i the column
        `rule.columns[i]` in the engine's quoting; nothing is searched or replaced afterwards -#}
    {%- set sql = [] -%}
    {%- for part in rule.parts -%}{%- do sql.append(adapter.quote(rule.columns[part]) if part is number else part) -%}{%- endfor -%}
    not ({{ sql | join('') }})
  {%- elif kind == 'referential' -%}
    ({{ adapter.quote('_bloomery_ref__' ~ rule.relationship) }} is null{% for pair in rule.pairs %} and {{ adapter.quote(pair[0]) }} is not null{% endfor %})
  {%- else -%}{{ exceptions.raise_compiler_error("bloomery.rule_violation: unknown rule kind " ~ kind) }}
  {%- endif -%}
{%- endmacro %}
