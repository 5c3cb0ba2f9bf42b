"""The change model: what `plan()` answers with. A `Change` is one row of the classification
table (spec reference, section 7); a `Plan` gathers the changes with the backfill and replay
scopes and the dbt commands they need. Kept apart from the comparison so that the text and JSON
writers (commands.py) and callers can use the answer without the machinery that builds it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import NamedTuple


class ChangeClass(str, Enum):
    ADDITIVE = "additive"
    WIDENING = "widening"
    RENAME = "rename"
    RESTATING = "restating"
    BREAKING = "breaking"

    def __str__(self) -> str:
        return self.value


class Change(NamedTuple):
    subject: str
    change_class: ChangeClass
    detail: str

    def as_dict(self) -> dict:
        return {"subject": self.subject, "class": self.change_class.value, "detail": self.detail}


@dataclass
class BackfillScope:
    entities: list[str] = field(default_factory=list)   # parents first
    restates_history: bool = False
    # entities named only because they reach a replayed parent through unknown_member or flag,
    # each with the limit of what a rebuild can restore
    limits: dict[str, str] = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {"entities": list(self.entities), "restates_history": self.restates_history,
                "limits": dict(self.limits)}


@dataclass
class Plan:
    changes: list[Change]
    backfill_scope: BackfillScope
    replay_scope: list[str]                    # run in this order
    replay_reasons: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.changes

    @property
    def breaking(self) -> list[Change]:
        return [c for c in self.changes if c.change_class is ChangeClass.BREAKING]

    def as_dict(self) -> dict:
        return {
            "changes": [c.as_dict() for c in self.changes],
            "backfill_scope": self.backfill_scope.as_dict(),
            "replay_scope": list(self.replay_scope),
            "replay_reasons": dict(self.replay_reasons),
            "notes": list(self.notes),
            "commands": list(self.commands),
        }


# what one part of the comparison found: the change, and what it asks of its entity
@dataclass
class Finding:
    change: Change
    entity: str | None = None
    backfill: bool = False      # the entity is rebuilt from bronze
    replay: bool = False        # the entity's reject table is re-judged


_PROJECT_SUBJECTS = ("relationship", "reconcile", "coverage")


def change_order(c: Change):
    """Entity by entity (the entity's own line first), then the project-level checks."""
    kind, _, rest = c.subject.partition(":")
    project_level = kind in _PROJECT_SUBJECTS
    entity = "" if project_level else rest.split(".")[0]
    return (project_level, entity, kind != "entity", c.subject, list(ChangeClass).index(c.change_class), c.detail)
