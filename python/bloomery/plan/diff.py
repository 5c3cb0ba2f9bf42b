"""`plan(old, new)`: classify every difference between two compiled spec versions.

Each difference is one row of the classification table (spec reference, section 7) and says
whether the entity must be rebuilt from bronze (backfill) and whether the rows held in its
reject table must be re-judged (replay). The replay decision is the section's rule, kept with
the rule changes (rules.py).

Subjects: `entity:<e>`, `field:<e>.<f>`, `relationship:<r>`, `quality:<e>.<rule>` (rule names
are unique per entity, not per project), `dedupe:<e>`, `quarantine:<e>`, `reconcile:<check>`,
`coverage:<check>`.

The comparison is one class, `_Differ`, put together here from a part per concept: renames.py,
entity.py, fields.py, rules.py, project.py; the answer's model is change.py.
"""
from __future__ import annotations

from ..resolve import ProjectIR
from ..errors import PlanError
from ..vocabulary import UNKNOWN_MEMBER
from .change import BackfillScope, Change, ChangeClass, Finding, Plan, change_order
from .entity import EntityDiffs
from .facts import IR_VERSION, facts_of
from .fields import FieldDiffs
from .project import ProjectDiffs
from .renames import RenameDiffs
from .rules import RuleDiffs
from .scope import Edge, parents_first, propagate

__all__ = ["BackfillScope", "Change", "ChangeClass", "Plan", "plan"]


def plan(old: ProjectIR | None, new: ProjectIR) -> Plan:
    """Classify what changed from `old` to `new` (None: nothing deployed yet) and name the
    backfill and the replays the change needs. Breaking changes are returned, not raised."""
    from .commands import commands_for
    if old is not None:
        versions = (getattr(old, "ir_version", IR_VERSION), getattr(new, "ir_version", IR_VERSION))
        if versions[0] != versions[1]:
            raise PlanError(f"the two projects were compiled to different IR versions ({versions[0]} and "
                            f"{versions[1]}) and cannot be compared field by field",
                            hint="compile both spec trees with the same bloomery (`bloomery plan --old DIR --new DIR`)")
    differ = _Differ(old, new)
    result = differ.run()
    result.commands = commands_for(result, new, differ.own_backfill, differ.limited_backfill)
    return result


# ----------------------------------------------------------------------------------------------
class _Differ(RenameDiffs, EntityDiffs, FieldDiffs, RuleDiffs, ProjectDiffs):
    """One comparison of two projects: the state every part shares (the two IRs, their spec facts,
    the renames) and the findings each part records through `add`; `scope` turns the findings
    into the plan's backfill and replay scopes."""

    def __init__(self, old: ProjectIR | None, new: ProjectIR):
        self.old = old
        self.new = new
        self.findings: list[Finding] = []
        self.notes: list[str] = []
        self.own_backfill: list[str] = []
        self.limited_backfill: dict[str, set[str]] = {}
        self.renames: dict[str, dict[str, str]] = {}
        new_facts = facts_of(new)
        old_facts = facts_of(old) if old is not None else None
        self.facts = (old_facts, new_facts) if old_facts is not None and new_facts is not None else None
        if old is not None and self.facts is None:
            self.notes.append("spec facts unavailable (an IR built without load_project): `required`, "
                              "`renamed_from`, `canonical`, `classification` and `materialization` were not compared")

    def add(self, subject, cls, detail, entity=None, backfill=False, replay=False):
        self.findings.append(Finding(Change(subject, cls, detail), entity, backfill, replay))

    # -- driver ----------------------------------------------------------------------------------
    def run(self) -> Plan:
        new = self.new
        if self.old is None:
            self.first_deploy()
        else:
            self.renames = self.collect_renames()
            old_entities = self.renamed_old_entities()
            for name in sorted(set(old_entities) | set(new.entities)):
                o, n = old_entities.get(name), new.entities.get(name)
                if o is None:
                    self.entity_added(name, n)
                elif n is None:
                    self.add(f"entity:{name}", ChangeClass.BREAKING,
                             f"entity dropped: `{name}` and its relations are no longer built"
                             + ("; its unresolved rejects can no longer be replayed" if o.quarantine else ""),
                             name)
                else:
                    self.entity(name, o, n)
            self.relationships()
            self.project_checks("reconcile", self.old.reconcile, new.reconcile)
            self.project_checks("coverage", self.old.coverage, new.coverage)
        return self.scope()

    def first_deploy(self):
        for name, ir in sorted(self.new.entities.items()):
            self.entity_added(name, ir)
        for rel in sorted(self.new.relationships, key=lambda r: r["name"]):
            self.add(f"relationship:{rel['name']}", ChangeClass.ADDITIVE, f"relationship added ({rel['from']} -> {rel['to']})")
        for kind, checks in (("reconcile", self.new.reconcile), ("coverage", self.new.coverage)):
            for check in sorted(checks, key=lambda c: c["name"]):
                self.add(f"{kind}:{check['name']}", ChangeClass.ADDITIVE, f"{kind} check added")

    def entity_added(self, name, ir):
        self.add(f"entity:{name}", ChangeClass.ADDITIVE,
                 f"entity added ({len(ir.columns)} field(s), {len(ir.rules)} rule(s)"
                 + (", reject table" if ir.quarantine else "") + ")", name)

    # -- one entity ------------------------------------------------------------------------------
    def entity(self, name, o, n):
        self.shape(name, o, n)
        self.grants(name, o, n)
        self.fields(name, o, n)
        self.mapped_columns(name, o, n)
        self.dedupe(name, o, n)
        self.quarantine(name, o, n)
        self.rules(name, o, n)
        self.asserts(name, o, n)
        self.freshness(name)

    # -- scopes ----------------------------------------------------------------------------------
    def scope(self) -> Plan:
        new = self.new.entities
        changes = sorted({f.change for f in self.findings}, key=change_order)
        seeds = {f.entity for f in self.findings if f.replay and f.entity in new}
        prop = propagate(seeds, new)
        replay = parents_first(prop.replay, new)
        reasons = {}
        for child, edges in sorted(prop.reached.items()):
            reasons[child] = "; ".join(
                f"its rule `{e.rule}` (on_missing: quarantine) reaches `{e.parent}`, which is replayed" for e in edges)
        own = {f.entity for f in self.findings if f.backfill and f.entity in new}
        limits = {}
        for child, edges in sorted(prop.limited.items()):
            limits[child] = _limit_text(child, edges, self.new.coverage)
        self.own_backfill = parents_first(own, new)
        self.limited_backfill = {child: {e.parent for e in edges} for child, edges in prop.limited.items()}
        backfill = BackfillScope(
            entities=parents_first(own | set(limits), new),
            restates_history=any(c.change_class is ChangeClass.RESTATING for c in changes),
            limits=limits)
        notes = list(self.notes)
        for name in replay:
            if new[name].scd == "type2":
                notes.append(f"`{name}` is type 2: its replay re-delivers rows to bronze, so replays of its children "
                             f"belong after its next run (the commands include that run)")
        if self.own_backfill or self.limited_backfill:
            notes.append("a full refresh rebuilds an entity from what bronze holds now: entity rows whose bronze rows "
                         "are gone (rows an earlier replay admitted included) are not rebuilt")
        return Plan(changes=changes, backfill_scope=backfill, replay_scope=replay, replay_reasons=reasons,
                    notes=notes)


# ----------------------------------------------------------------------------------------------
def _limit_text(child: str, edges: list[Edge], coverage: list[dict]) -> str:
    parts = []
    for e in edges:
        if e.on_missing == "unknown_member":
            kept = f"keep their '{UNKNOWN_MEMBER}' rewrite: no column keeps the original key, so nothing can restore it"
        else:
            kept = f"keep their `{e.rule}` flag: a rebuild reads bronze, and bronze no longer holds them"
        text = (f"`{child}` reaches `{e.parent}` through `{e.relationship}` (on_missing: {e.on_missing}): its rows "
                f"still in bronze are rebuilt against the returned `{e.parent}` rows; rows bronze no longer holds "
                f"{kept}. To bring them back, re-ingest them into bronze")
        blocking = sorted(c["name"] for c in coverage if c["relationship"] == e.relationship and c["on_fail"] == "fail")
        if blocking:
            text += (f"; or make coverage {', '.join(f'`{b}`' for b in blocking)} non-blocking (on_fail: flag) so it "
                     "stops failing runs over children that cannot come back")
        parts.append(text + ". For orphans you want back, choose on_missing: quarantine.")
    return " ".join(parts)
