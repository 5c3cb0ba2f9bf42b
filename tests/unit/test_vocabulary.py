"""The macros' one copy of the product's reserved names (macros/sql/vocabulary.sql) is the
vocabulary module's, and no other macro spells them."""
from __future__ import annotations

import re
from pathlib import Path

import jinja2

from bloomery import vocabulary

MACROS = Path(__file__).resolve().parents[2] / "macros"


def _macro_vocabulary() -> dict:
    returned = []
    env = jinja2.Environment(extensions=["jinja2.ext.do"])
    env.globals["return"] = lambda value: returned.append(value) or ""
    env.from_string((MACROS / "sql" / "vocabulary.sql").read_text()).module.vocabulary()
    (value,) = returned
    return value


def test_the_macros_vocabulary_is_the_modules():
    assert _macro_vocabulary() == {"metadata": list(vocabulary.METADATA), "unknown_member": vocabulary.UNKNOWN_MEMBER,
                                   "replay_load": vocabulary.REPLAY_LOAD,
                                   "internal_prefix": vocabulary.INTERNAL_PREFIX, "placeholder": vocabulary.PLACEHOLDER}


def test_no_other_macro_spells_a_reserved_value_or_the_metadata_list():
    # comments may name them; SQL and Jinja code may not
    code = re.compile(r"\{#.*?#\}", re.S)
    metadata_list = re.compile(r"_load_id\W+_ingested_at\W+_source_row_id")
    for path in MACROS.rglob("*.sql"):
        if path.name == "vocabulary.sql":
            continue
        text = code.sub("", path.read_text())
        for value in (vocabulary.UNKNOWN_MEMBER, vocabulary.REPLAY_LOAD):
            assert value not in text, f"{path.relative_to(MACROS)} spells {value!r}: use bloomery.vocabulary()"
        assert not metadata_list.search(text), f"{path.relative_to(MACROS)} lists the metadata: use bloomery.vocabulary()"
