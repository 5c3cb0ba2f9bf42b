"""Project-level changes: relationships and the reconcile and coverage checks, which belong to
no one entity. The old side is seen through the renames, so a renamed key is not a change.
"""
from __future__ import annotations

from .change import ChangeClass
from .renames import rename_coverage, rename_reconcile, rename_relationship
from .values import show


class ProjectDiffs:
    """The project-level part of the comparison (mixed into `_Differ`, diff.py): reads
    `self.old`, `self.new`, `self.renames` and records through `self.add`."""

    def relationships(self):
        old = {r["name"]: rename_relationship(r, self.renames) for r in self.old.relationships}
        new = {r["name"]: r for r in self.new.relationships}
        for key in sorted(set(old) | set(new)):
            a, b = old.get(key), new.get(key)
            subject = f"relationship:{key}"
            if a is None:
                self.add(subject, ChangeClass.ADDITIVE, f"relationship added ({b['from']} -> {b['to']})")
            elif b is None:
                self.add(subject, ChangeClass.BREAKING, f"relationship removed ({a['from']} -> {a['to']})")
            elif a != b:
                diffs = [f"{k} {show(a.get(k))} -> {show(b.get(k))}" for k in ("from", "to", "via", "cardinality")
                         if a.get(k) != b.get(k)]
                self.add(subject, ChangeClass.BREAKING, "relationship changed: " + "; ".join(diffs))

    def project_checks(self, kind, old_checks, new_checks):
        strip = lambda c: {k: v for k, v in c.items() if k != "path"}  # noqa: E731
        renamer = rename_reconcile if kind == "reconcile" else rename_coverage
        old = {c["name"]: renamer(strip(c), self.renames) for c in old_checks}
        new = {c["name"]: strip(c) for c in new_checks}
        for key in sorted(set(old) | set(new)):
            a, b = old.get(key), new.get(key)
            subject = f"{kind}:{key}"
            if a == b:
                continue
            if a is None:
                self.add(subject, ChangeClass.ADDITIVE, f"{kind} check added")
            elif kind == "coverage":
                # an audit over admitted rows: it stores nothing, so no history changes
                self.add(subject, ChangeClass.ADDITIVE,
                         f"coverage check {'removed' if b is None else 'changed'} (an audit: no stored row changes)")
            elif b is None:
                self.add(subject, ChangeClass.RESTATING, f"reconcile check removed: `{key}__reconcile` is no longer built")
            else:
                self.add(subject, ChangeClass.RESTATING, f"reconcile check changed: `{key}__reconcile` is recomputed")
