"""Resolve: from spec files to the typed project IR the emitter, `bloomery plan` and the report
read. The stages and their order are in project.py."""
from .ir import IR_VERSION, Disposition, ProjectIR, materialization
from .project import check_project

__all__ = ["IR_VERSION", "Disposition", "ProjectIR", "check_project", "materialization"]
