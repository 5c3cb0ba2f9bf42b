"""Spec values as the plan compares and words them: a change's detail names types, thresholds
and lists the way a spec writes them, and two spellings that mean the same compare equal.
Shared by every part of the comparison (entity.py, fields.py, rules.py, project.py).
"""
from __future__ import annotations

from ..transforms.types import SpecType


def freeze(v):
    if isinstance(v, dict):
        return tuple(sorted((k, freeze(x)) for k, x in v.items()))
    if isinstance(v, list):
        return tuple(freeze(x) for x in v)
    return v


def spec_type(t: dict) -> SpecType:
    return SpecType(t["name"], t.get("precision", 0), t.get("scale", 0))


def type_name(t: dict) -> str:
    return str(spec_type(t))


def percent(bp) -> str:
    """A threshold in basis points as the spec writes it (none: not declared)."""
    if bp is None:
        return "none"
    whole, part = divmod(bp, 100)
    return f"{whole}%" if not part else f"{whole}.{part:02d}".rstrip("0") + "%"


def names(items) -> str:
    return ", ".join(f"`{x}`" for x in sorted(items))


def show(v) -> str:
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(show(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {show(x)}" for k, x in v.items()) + "}"
    return str(v)
