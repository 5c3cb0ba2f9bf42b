"""Spec text in the YAML dbt renders as Jinja: descriptions, meta, tags, user tests' arguments and
config, snapshot column names. Each is turned into data dbt's rendering cannot run.

Separate because it is the YAML half of the injection boundary (jinja_literal is the SQL half):
every YAML writer goes through it, so what may reach dbt's renderer is decided in one place.
"""
from __future__ import annotations

import re

from .dialects import DIALECTS, capabilities
from .jinja_literal import literal


def _user_config(docs: dict) -> dict:
    """A node's `config:` for the user's `meta` (with `owner`) and `tags`."""
    config = {}
    if docs.get("meta"):
        config["meta"] = _data(docs["meta"])
    if docs.get("tags"):
        config["tags"] = list(docs["tags"])   # the schema's tag grammar: no tag can open Jinja
    return config


# dbt renders a generic test's string arguments and config natively, and first wraps one that
# looks like `env_var(...)`, `var(...)`, `ref(...)`, `source(...)` or `doc(...)` in braces
# (dbt/clients/jinja.py add_rendered_test_kwargs): such a string is code to dbt, so it goes in as
# a Jinja string literal too.
_LOOKS_LIKE_CALL = re.compile(r"^\s*(env_var|ref|var|source|doc)\s*\(.+\)\s*$", re.S)


def _data(value):
    """A spec value (meta, a user test's arguments or config) for YAML dbt renders as Jinja: every
    string that dbt would run (a tag opener, or a bare call dbt wraps) becomes one Jinja string
    literal, which renders back to exactly the text. Other values pass as they are."""
    if isinstance(value, dict):
        return {k: _data(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_data(v) for v in value]
    if isinstance(value, str) and (any(o in value for o in ("{{", "{%", "{#")) or _LOOKS_LIKE_CALL.match(value)):
        return "{{ " + literal(value) + " }}"
    return value


def _quoted_name(name: str) -> str:
    """A column name for a snapshot's `unique_key` / `check_cols`, which dbt's snapshot
    materialization writes into SQL as they are. The YAML is rendered with the target known but
    no adapter, so the quote character is chosen by target type; the name is a Jinja string
    literal (escaped, renders back to exactly the name, never runs)."""
    marks = sorted(n for n in DIALECTS if capabilities(n)["identifier_quote"] == "`")
    mark = "('`' if target.type in " + literal(marks) + " else '\"')"
    return "{{ " + mark + " ~ " + literal(name) + " ~ " + mark + " }}"


def _version_key(entity) -> str:
    """A type 2 snapshot's `unique_key`: the SQL expression dbt versions rows by, evaluated on the
    `__kept` rows and on the snapshot's current versions alike (so it adds no column to the entity).
    dbt matches a row to its current version with `=`, which a NULL key never satisfies: a kept
    row whose key is NULL would be inserted again as another current version by every build that
    feeds it. A NULL key is its own dedupe group per source row (docs/design.md, "Type 2
    versions"), so it is its own version chain per source row: the expression is the key, as
    text, for a key and the source row's identity (with `_source` on a merged entity) for a NULL
    one, each behind its own tag so no key can equal a source row. Without ingestion metadata a
    row has no identity to name, and the key is the key."""
    key = _quoted_name(entity.key[0])
    if not entity.metadata:
        return key
    types = {n: capabilities(n)["string_type"] for n in sorted(DIALECTS) if n != "default"}
    text = "{{ " + literal(types) + ".get(target.type, " + literal(capabilities("default")["string_type"]) + ") }}"
    row = f"cast({_quoted_name('_source_row_id')} as {text})"
    if len(entity.mappings) > 1:
        # `_source` and `_source_row_id` identify the row; the length keeps the pair unambiguous
        source = _quoted_name("_source")
        row = f"cast(length({source}) as {text}) || ':' || {source} || {row}"
    return f"case when {key} is null then 'r' || {row} else 'k' || cast({key} as {text}) end"


def _prose(text: str) -> str:
    """Spec prose for a YAML description. dbt renders descriptions as Jinja: text that could open
    a tag goes in as one Jinja string literal (tag characters escaped), which renders back to
    exactly the text and never runs."""
    return "{{ " + literal(text) + " }}" if any(t in text for t in ("{{", "{%", "{#")) else text
