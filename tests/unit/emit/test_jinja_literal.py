"""The injection boundary (python/bloomery/emit/jinja_literal.py): every spec value a generated
model or test carries goes through these two spellings, so they are checked on arbitrary text,
not on examples: the value comes back exactly, and no Jinja tag can form in what is written."""
from __future__ import annotations

import json

import jinja2
import pytest
from dbt.clients.jinja import get_rendered
from hypothesis import given, settings
from hypothesis import strategies as st

from bloomery.emit.jinja_literal import inert_argument, literal, string

# every code point but lone surrogates (YAML and the spec loader refuse those before emit)
TEXT = st.text(st.characters(blacklist_categories=("Cs",)))
HOSTILE = st.sampled_from(["{{", "}}", "{%", "%}", "{#", "#}", "{%- raw -%}", "\\", '"', "'", "\n", "\u2028", "\x00"])
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | TEXT | HOSTILE,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT | HOSTILE, inner, max_size=4),
    max_leaves=12)
OPENERS = ("{{", "{%", "{#")
ENV = jinja2.Environment(undefined=jinja2.StrictUndefined)


@settings(max_examples=400, deadline=None)
@given(st.lists(TEXT | HOSTILE, max_size=4).map("".join))
def test_a_string_comes_back_exactly_from_a_template(text):
    written = string(text)
    assert written.isascii() and not set("{}%#") & set(written)
    assert ENV.from_string("{%- set v = " + written + " -%}{{ v }}").render() == text


@settings(max_examples=300, deadline=None)
@given(VALUES)
def test_a_value_comes_back_exactly_and_no_tag_opens(value):
    written = literal(value)
    # a `}}` can close two nested mappings: Jinja balances brackets inside a tag, so it ends none
    assert not any(d in written for d in OPENERS)
    # as a model reads it: `{%- set entity = <literal> -%}`, and as a macro's argument
    module = ENV.from_string("{%- set v = " + written + " -%}").make_module()
    assert module.v == value
    seen = []
    ENV.from_string("{{ keep(" + written + ") }}").render(keep=seen.append)
    assert seen == [value]


@settings(max_examples=300, deadline=None)
@given(VALUES)
def test_a_test_argument_survives_dbt_rendering_it(value):
    """dbt renders a generic test's string arguments with its own native renderer: the argument's
    text comes back unchanged (no tag runs), and `bloomery.argument` reads the value back."""
    written = inert_argument(value)
    assert not any(d in written for d in OPENERS + ("}}", "%}", "#}"))
    assert get_rendered(written, {}, native=True) == written
    assert json.loads(written) == value


def test_what_cannot_be_written_is_refused():
    with pytest.raises(TypeError):
        literal({"x": object()})
    with pytest.raises(TypeError):
        literal(1.5)           # a float would be spelled differently by Jinja and Python
