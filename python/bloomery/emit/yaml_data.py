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


def _prose(text: str) -> str:
    """Spec prose for a YAML description. dbt renders descriptions as Jinja: text that could open
    a tag goes in as one Jinja string literal (tag characters escaped), which renders back to
    exactly the text and never runs."""
    return "{{ " + literal(text) + " }}" if any(t in text for t in ("{{", "{%", "{#")) else text
