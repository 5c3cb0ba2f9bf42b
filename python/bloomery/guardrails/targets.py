"""What no dbt target can run, whatever the engine: refused by `bloomery check` and before any
dbt file is rendered, with the spec location of the step.

A guardrail on the resolved project (its entities' lowered chains), so `check` needs nothing of
emit to give the same answer `compile` gives. The project is passed in whole, for its `relocate`.
"""
from __future__ import annotations

from ..errors import Location, UnsupportedByTarget

# The shortest limit of a name among the targets: PostgreSQL keeps 63 bytes of an identifier
# (NAMEDATALEN - 1) and cuts the rest with a NOTICE, so two long names can silently become one.
# Every name a spec gives, and every relation bloomery names after it, fits it. (A test is no
# relation: its name, at most three such names joined, only has to make a file name.)
NAME_MAX_BYTES = 63


def refuse_unsupported(project) -> None:
    """What no dbt target can run, whatever the dialect: `check` refuses it too."""
    for entity in project.entities.values():
        for mapping in entity.mappings:
            for column in mapping.columns:
                for step in column.steps:
                    if step["op"] != "convert":
                        continue
                    path = f"{column.path}.transform[{step.get('chain_index', 0)}]"
                    raise project.relocate(UnsupportedByTarget(
                        f"`convert` in the chain of {entity.name}.{column.name} needs currency rates "
                        "that no dbt target here provides", Location(path=path),
                        "convert upstream, or drop the step"))
