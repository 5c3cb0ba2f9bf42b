"""The resolved project: what the resolve stages hand to emit, plan and report.

Decides the shape of a compiled project (`ProjectIR`), an entity's materialization when the spec
leaves it implicit, and the precedence of rule dispositions (`Disposition`: fail > quarantine >
flag). The IR itself keeps dispositions as their spec strings ("fail"), so the emitted files are
unchanged; `Disposition` is for comparisons only.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Callable

from ..errors import BloomeryError, Location


# Bumped whenever the IR's shape changes in a way that makes two IRs incomparable, or the generated
# models change in a way the macros rely on (2: `materialization`, and the ledger the models read;
# 3: the quarantine thresholds, drift settings and dbt metadata, and the mart's `run_started_at`
# pre-hook and `quality_drift` model: a project compiled before them must be compiled again).
IR_VERSION = 3


class Disposition(enum.IntEnum):
    """A rule's on_fail, ordered by precedence: a higher value overrides a lower one."""
    FLAG = 1
    QUARANTINE = 2
    FAIL = 3

    @classmethod
    def of(cls, text: str) -> "Disposition":
        """The disposition named by a spec's on_fail string ("flag", "quarantine", "fail")."""
        return cls[text.upper()]


@dataclass
class ProjectIR:
    entities: dict[str, dict]                 # entity name -> entity IR (see entity_ir)
    relationships: list[dict] = field(default_factory=list)
    sources: list[dict] = field(default_factory=list)   # bronze relations, with freshness
    files: list[str] = field(default_factory=list)
    reconcile: list[dict] = field(default_factory=list)  # document-level checks (spec 3.6)
    coverage: list[dict] = field(default_factory=list)
    # what fields promise beyond what the pipeline does (required, renamed_from, canonical,
    # classification) and each entity's materialization: plan compares these, the models never
    # read them (resolve/project.py: contract_facts)
    contract: dict = field(default_factory=dict)
    ir_version: int = IR_VERSION
    # spec path text ("mapping[a->b].fields.x.transform[1]") -> Location; for later stages
    # (emit) that know where a problem is in spec terms but not in which file and line.
    locate: Callable[[str], Location] | None = field(default=None, repr=False, compare=False)

    def relocate(self, error: BloomeryError) -> BloomeryError:
        """Give an error raised after compilation (emit) the file, line and column of its spec path."""
        loc = error.location
        if self.locate is not None and loc.path and not loc.file:
            found = self.locate(loc.path)
            error.location = Location(found.file, found.line, found.column, loc.path)
        return error


def materialization(entity: dict) -> str:
    """An entity spec's materialization: the declared one, else `incremental_by_partition` when it
    has a `partition_by`, else `full` (the one derivation: the IR and plan's spec facts use it)."""
    declared = entity.get("materialization")
    if declared:
        return declared
    return "incremental_by_partition" if entity.get("partition_by") else "full"
