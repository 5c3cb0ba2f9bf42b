"""What `plan()` compares beyond the pipeline itself: the IR's contract facts.

A few spec keys describe a contract rather than what the pipeline does: `required` (optional ->
required is breaking), `renamed_from` (a rename, not a drop and an add), `canonical`,
`classification`. The compiler records them on the IR (`ProjectIR.contract`, from the documents
it read), so plan diffs two IRs and never re-reads a spec file.
"""
from __future__ import annotations

from ..resolve import IR_VERSION, ProjectIR, check_project

__all__ = ["IR_VERSION", "facts_of", "load_project"]

# plan's inputs are what check_project returns; the name stays for callers of `bloomery.plan`
load_project = check_project


def facts_of(project: ProjectIR) -> dict | None:
    """The contract facts of a compiled IR, or None for an IR assembled by hand without them."""
    return project.contract or None
