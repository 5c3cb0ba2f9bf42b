"""The names bloomery gives what it generates from a spec: rules (and so their dbt tests, flags
and reject `failed_rules`) and `assert` checks. One place, because two readers must agree: the
compiler names them, and `bloomery plan` renames them when a column is renamed, so that a rename
is recognised as the same rule and not as a rule removed and another added."""
from __future__ import annotations

import re

_NOT_IN_A_NAME = re.compile(r"[^a-z0-9_]")


def name_part(text: str) -> str:
    """`text` as part of a generated name: lower case, anything but [a-z0-9_] an underscore."""
    return _NOT_IN_A_NAME.sub("_", text.lower())


def rule_name(column: str, kind: str, rule: dict) -> str:
    """An unnamed field rule's name: `<column>_<kind>`, and for a one-sided `range`/`length` the
    side (`amount_range_min`), so a min and a max rule on one column do not share a name."""
    name = f"{column}_{kind}"
    if kind in ("range", "length"):
        sides = [b for b in ("min", "max") if b in rule]
        if len(sides) == 1:
            name += "_" + sides[0]
    return name_part(name)


def unique_name(name: str, taken: list[str]) -> str:
    """`name`, or `name_2`, `name_3`... when it is taken; records the one chosen in `taken`."""
    candidate, n = name, 1
    while candidate in taken:
        n += 1
        candidate = f"{name}_{n}"
    taken.append(candidate)
    return candidate


def renamed_rule_name(name: str, old_column: str, new_column: str) -> str:
    """A rule's name after its column is renamed: a generated name follows the column, a name
    the spec gave (not starting with the column's part) stays."""
    prefix = name_part(old_column) + "_"
    return name_part(new_column) + "_" + name[len(prefix):] if name.startswith(prefix) else name


def assert_name(entity: str, column: str, kind: str) -> str:
    """An `assert` check's name (its dbt test): `<entity>_<column>_<kind>`."""
    return f"{entity}_{column}_{kind}"
