"""`plan(old, new)`: classify every difference between two compiled spec versions.

Each difference is one row of the classification table (spec reference, section 7) and says
whether the entity must be rebuilt from bronze (backfill) and whether the rows held in its
reject table must be re-judged (replay). The replay decision is the section's rule: only a rule
whose *old* effective disposition was `quarantine` can have rows waiting in the reject table,
and only a removal, a relaxation to flag, or parameters that admit something new frees them.

Subjects: `entity:<e>`, `field:<e>.<f>`, `relationship:<r>`, `quality:<e>.<rule>` (rule names
are unique per entity, not per project), `dedupe:<e>`, `quarantine:<e>`, `reconcile:<check>`,
`coverage:<check>`.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal, InvalidOperation
from enum import Enum
from typing import NamedTuple

from ..resolve import ProjectIR
from ..errors import PlanError, RenameTargetMissing
from ..resolve.naming import assert_name, renamed_rule_name
from ..vocabulary import UNKNOWN_MEMBER
from ..transforms.types import SpecType, assignable
from .facts import IR_VERSION, facts_of
from .scope import Edge, parents_first, propagate


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
@dataclass
class _Finding:
    change: Change
    entity: str | None = None
    backfill: bool = False      # the entity is rebuilt from bronze
    replay: bool = False        # the entity's reject table is re-judged


_RULE_META = frozenset({"name", "rule", "column", "disposition", "on_missing", "path", "implicit"})


class _Differ:
    def __init__(self, old: ProjectIR | None, new: ProjectIR):
        self.old = old
        self.new = new
        self.findings: list[_Finding] = []
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
        self.findings.append(_Finding(Change(subject, cls, detail), entity, backfill, replay))

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
                             + ("; its unresolved rejects can no longer be replayed" if o["quarantine"] else ""),
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
        rules = len(ir["rules"])
        self.add(f"entity:{name}", ChangeClass.ADDITIVE,
                 f"entity added ({len(ir['columns'])} field(s), {rules} rule(s)"
                 + (", reject table" if ir["quarantine"] else "") + ")", name)

    # -- renames ---------------------------------------------------------------------------------
    def collect_renames(self) -> dict[str, dict[str, str]]:
        """{entity: {old field: new field}} from `renamed_from`; a hint naming a field the old
        spec lacks is refused (RenameTargetMissing), never guessed at."""
        out: dict[str, dict[str, str]] = {}
        if self.facts is None:
            return out
        old_facts, new_facts = self.facts
        for name, nf in sorted(new_facts["entities"].items()):
            of = old_facts["entities"].get(name)
            for fname, spec in sorted(nf["fields"].items()):
                source = spec.get("renamed_from")
                if not source:
                    continue
                old_fields = of["fields"] if of else {}
                if source not in old_fields:
                    where = (f"the old spec of `{name}` has no field `{source}`" if of else
                             f"the old spec has no entity `{name}`")
                    stale = of is not None and fname in old_fields
                    raise RenameTargetMissing(
                        f"`{name}.{fname}` says renamed_from: {source}, but {where}", spec.get("at"),
                        hint=("the rename is already deployed: remove `renamed_from`" if stale else
                              "fix the old name, or remove `renamed_from` if this is a new field"))
                if source in nf["fields"]:
                    raise PlanError(f"`{name}.{fname}` says renamed_from: {source}, but `{source}` is still a field "
                                    f"of `{name}`", spec.get("at"), hint="drop the old field, or remove `renamed_from`")
                if fname in old_fields:
                    raise PlanError(f"`{name}.{fname}` says renamed_from: {source}, but the old spec has both "
                                    f"`{source}` and `{fname}`", spec.get("at"), hint="remove `renamed_from`")
                out.setdefault(name, {})[source] = fname
        return out

    def renamed_old_entities(self) -> dict[str, dict]:
        """The old entities with every reference to a renamed field rewritten to its new name,
        so that a rename compares equal to itself everywhere else (rules, keys, dedupe, ...)."""
        out = {}
        for name, ir in self.old.entities.items():
            ren = self.renames.get(name, {})
            out[name] = _rename_entity(ir, ren, self.renames) if self.renames else ir
        for name, ren in sorted(self.renames.items()):
            if name not in self.new.entities:
                continue  # an entity no mapping feeds builds nothing to rename
            for source, target in sorted(ren.items()):
                self.add(f"field:{name}.{target}", ChangeClass.RENAME,
                         f"renamed from `{source}`: the column is renamed in `{name}` (rebuilt), values unchanged",
                         name, backfill=True)
        return out

    # -- one entity ------------------------------------------------------------------------------
    def entity(self, name, o, n):
        subject = f"entity:{name}"
        for key, label in (("grain", "grain"), ("key", "key"), ("scd", "scd")):
            if o[key] != n[key]:
                self.add(subject, ChangeClass.BREAKING, f"{label} changed: {_show(o[key])} -> {_show(n[key])}", name)
        if self.facts is not None:
            om = self.facts[0]["entities"].get(name, {}).get("materialization")
            nm = self.facts[1]["entities"].get(name, {}).get("materialization")
            if om != nm:
                self.add(subject, ChangeClass.BREAKING, f"materialization changed: {om} -> {nm}", name)
        if _partitions(o) != _partitions(n):
            self.add(subject, ChangeClass.RESTATING,
                     f"partition_by changed: {_show(_partitions(o))} -> {_show(_partitions(n))}", name, backfill=True)
        self.grants(name, o, n)
        self.fields(name, o, n)
        self.mapped_columns(name, o, n)
        self.dedupe(name, o, n)
        self.quarantine(name, o, n)
        self.rules(name, o, n)
        self.asserts(name, o, n)
        self.freshness(name)

    def grants(self, name, o, n):
        old = set((o.get("grants") or {}).get("select", []))
        new = set((n.get("grants") or {}).get("select", []))
        if new - old:
            self.add(f"entity:{name}", ChangeClass.ADDITIVE, f"select granted to {_names(new - old)}", name)
        if old - new:
            self.add(f"entity:{name}", ChangeClass.BREAKING, f"select revoked from {_names(old - new)}", name)

    def fields(self, name, o, n):
        old = {c["name"]: c for c in o["columns"]}
        new = {c["name"]: c for c in n["columns"]}
        for f in sorted(set(old) | set(new)):
            subject = f"field:{name}.{f}"
            if f not in old:
                self.add(subject, ChangeClass.ADDITIVE,
                         f"field added ({_type(new[f]['type'])}); existing rows read NULL until rebuilt", name)
                continue
            if f not in new:
                self.add(subject, ChangeClass.BREAKING, f"field dropped ({_type(old[f]['type'])})", name)
                continue
            ot, nt = old[f]["type"], new[f]["type"]
            if ot != nt:
                if assignable(_spec_type(ot), _spec_type(nt)):
                    self.add(subject, ChangeClass.WIDENING, f"type widened: {_type(ot)} -> {_type(nt)}", name, backfill=True)
                else:
                    self.add(subject, ChangeClass.BREAKING, f"type narrowed or changed: {_type(ot)} -> {_type(nt)}", name)
            if self.facts is None:
                continue
            of = self.facts[0]["entities"].get(name, {}).get("fields", {})
            nf = self.facts[1]["entities"].get(name, {}).get("fields", {})
            before = of.get(self._old_name(name, f)) or {}
            after = nf.get(f) or {}
            if not before or not after:
                continue
            if not before["required"] and after["required"]:
                self.add(subject, ChangeClass.BREAKING, "optional -> required", name)
            elif before["required"] and not after["required"]:
                self.add(subject, ChangeClass.ADDITIVE, "required -> optional", name)
            if before["canonical"] != after["canonical"]:
                self.add(subject, ChangeClass.RESTATING,
                         f"canonical changed: {before['canonical']} -> {after['canonical']}", name, backfill=True)
            if before["classification"] != after["classification"]:
                self.add(subject, ChangeClass.ADDITIVE,
                         f"classification changed: {before['classification']} -> {after['classification']}", name)

    def _old_name(self, entity, field_name):
        for source, target in self.renames.get(entity, {}).items():
            if target == field_name:
                return source
        return field_name

    def mapped_columns(self, name, o, n):
        """Transform chain or source of a column changed: the entity restates its history."""
        old, new = _column_sources(o), _column_sources(n)
        both = {c["name"] for c in o["columns"]} & {c["name"] for c in n["columns"]}
        for col in sorted(both):
            a, b = old.get(col, []), new.get(col, [])
            if a == b:
                continue
            subject = f"field:{name}.{col}"
            if not a:
                detail = f"now mapped from {_where(b)}"
            elif not b:
                detail = f"no longer mapped (was {_where(a)}): rows read NULL"
            elif [x[:3] for x in a] != [x[:3] for x in b]:
                detail = f"source changed: {_where(a)} -> {_where(b)}"
            else:
                detail = "transform chain changed"
            self.add(subject, ChangeClass.RESTATING, detail, name, backfill=True)

    def dedupe(self, name, o, n):
        a, b = o["dedupe"], n["dedupe"]
        if a == b:
            return
        order = lambda d: ", ".join(x["column"] for x in d["order"])  # noqa: E731
        if a is None:
            detail = f"dedupe added (latest by {order(b)})"
        elif b is None:
            detail = f"dedupe removed (was latest by {order(a)})"
        else:
            detail = f"dedupe order changed: {order(a)} -> {order(b)}"
        self.add(f"dedupe:{name}", ChangeClass.RESTATING, detail, name, backfill=True)

    def quarantine(self, name, o, n):
        a, b = o["quarantine"], n["quarantine"]
        subject = f"quarantine:{name}"
        if a is None and b is None:
            return
        if a is None:
            self.add(subject, ChangeClass.ADDITIVE, f"quarantine added (retention {b['retention']}): "
                     f"`{name}__reject` is created", name)
            return
        if b is None:
            self.add(subject, ChangeClass.BREAKING, f"quarantine removed: `{name}__reject` is no longer built and "
                     "its unresolved rows can no longer be replayed", name)
            return
        if a["retention"] != b["retention"]:
            self.add(subject, ChangeClass.ADDITIVE, f"retention changed: {a['retention']} -> {b['retention']}", name)
        for key, what in (("warn_above_bp", "warn_above"), ("error_above_bp", "error_above")):
            # the quarantine-rate test's thresholds: what dbt reports, never what a row does
            if a.get(key) != b.get(key):
                self.add(subject, ChangeClass.ADDITIVE, f"{what} changed: {_percent(a.get(key))} -> "
                         f"{_percent(b.get(key))} (the `{name}_quarantine_rate` test)", name)
        widened = set(b["redact"]) - set(a["redact"])
        narrowed = set(a["redact"]) - set(b["redact"])
        if widened:
            # restated by the reject model's redact post-hook (macros/reject/redact_rejects.sql),
            # which the final `dbt build` of every plan runs: no rebuild, no run-operation
            self.add(subject, ChangeClass.RESTATING,
                     f"redact widened ({_names(widened)}): the next `dbt build` removes them from `raw` of the rows "
                     f"`{name}__reject` already holds, and new reject rows never keep them", name)
        if narrowed:
            self.add(subject, ChangeClass.ADDITIVE, f"redact narrowed ({_names(narrowed)}): new reject rows keep them", name)
        old_maps = {m["source"]: m for m in o["mappings"]}
        for m in n["mappings"]:
            prev = old_maps.get(m["source"])
            if prev is None:
                continue
            if prev["mapping_version"] != m["mapping_version"]:
                self.add(subject, ChangeClass.ADDITIVE,
                         f"reject mapping_version of {m['mapping']}: {prev['mapping_version']} -> {m['mapping_version']}", name)
            gained = set(m["raw_columns"]) - set(prev["raw_columns"]) - narrowed
            lost = set(prev["raw_columns"]) - set(m["raw_columns"]) - widened
            if gained:
                self.add(subject, ChangeClass.ADDITIVE, f"`raw` of {m['mapping']} gains {_names(gained)}", name)
            if lost:
                self.add(subject, ChangeClass.RESTATING,
                         f"`raw` of {m['mapping']} loses {_names(lost)}: rejects stored before keep them, new ones do not",
                         name)

    def rules(self, name, o, n):
        old = {_identity(r): r for r in o["rules"]}
        new = {_identity(r): r for r in n["rules"]}
        for ident in sorted(set(old) | set(new), key=lambda i: (i[2], i[0], i[1] or "")):
            a, b = old.get(ident), new.get(ident)
            rule_name = (a or b)["name"]
            subject = f"quality:{name}.{rule_name}"
            if a is None:
                self.add(subject, ChangeClass.RESTATING, f"rule added: {_describe(b)}", name, backfill=True)
                continue
            if b is None:
                replay = a["disposition"] == "quarantine" and n["quarantine"] is not None
                self.unreplayable(name, a, n)
                self.add(subject, ChangeClass.RESTATING, f"rule removed: {_describe(a)}"
                         + ("; replay: the rows it quarantined may now pass" if replay else ""),
                         name, backfill=True, replay=replay)
                continue
            what = []
            if a["disposition"] != b["disposition"]:
                what.append(f"disposition {a['disposition']} -> {b['disposition']}")
            if a.get("on_missing") != b.get("on_missing") and a["rule"] == "referential":
                what.append(f"on_missing {a['on_missing']} -> {b['on_missing']}")
            pa, pb = _params(a, o), _params(b, n)
            admits = None
            if pa != pb:
                admits = _admits_more(a["rule"], pa, pb)
                what.append(_params_detail(a["rule"], pa, pb, admits))
            if not what:
                continue
            replay = False
            reason = ""
            if a["disposition"] == "quarantine" and n["quarantine"] is None:
                self.unreplayable(name, a, n)
            elif a["disposition"] == "quarantine":
                if b["disposition"] == "flag":
                    replay, reason = True, "rows it quarantined are now kept with a flag"
                elif admits is not False and pa != pb:
                    replay = True
                    reason = ("the new parameters admit values the old rejected" if admits else
                              "whether the new parameters admit more cannot be decided from the spec")
            self.add(subject, ChangeClass.RESTATING, "; ".join(what) + (f"; replay: {reason}" if replay else ""),
                     name, backfill=True, replay=replay)

    def unreplayable(self, name, rule, n):
        if rule["disposition"] == "quarantine" and n["quarantine"] is None:
            note = (f"`{name}`: rule `{rule['name']}` quarantined rows, but the new spec has no quarantine block, "
                    f"so `{name}__reject` cannot be replayed; its unresolved rows stay where they are")
            if note not in self.notes:
                self.notes.append(note)

    def asserts(self, name, o, n):
        old = {a["name"]: a for a in o.get("asserts", [])}
        new = {a["name"]: a for a in n.get("asserts", [])}
        for key in sorted(set(old) | set(new)):
            a, b = old.get(key), new.get(key)
            if a == b:
                continue
            ref = b or a
            verb = "added" if a is None else "removed" if b is None else "changed"
            self.add(f"field:{name}.{ref['column']}", ChangeClass.ADDITIVE,
                     f"assert {ref['kind']} {verb} (an alert: no row moves)", name)

    def freshness(self, name):
        old = {s["name"]: s.get("freshness") for s in self.old.sources if name in s["entities"]}
        new = {s["name"]: s.get("freshness") for s in self.new.sources if name in s["entities"]}
        for source in sorted(set(old) & set(new)):
            if old[source] != new[source]:
                self.add(f"entity:{name}", ChangeClass.ADDITIVE, f"freshness of source `{source}` changed", name)

    # -- project level ---------------------------------------------------------------------------
    def relationships(self):
        old = {r["name"]: _rename_relationship(r, self.renames) for r in self.old.relationships}
        new = {r["name"]: r for r in self.new.relationships}
        for key in sorted(set(old) | set(new)):
            a, b = old.get(key), new.get(key)
            subject = f"relationship:{key}"
            if a is None:
                self.add(subject, ChangeClass.ADDITIVE, f"relationship added ({b['from']} -> {b['to']})")
            elif b is None:
                self.add(subject, ChangeClass.BREAKING, f"relationship removed ({a['from']} -> {a['to']})")
            elif a != b:
                diffs = [f"{k} {_show(a.get(k))} -> {_show(b.get(k))}" for k in ("from", "to", "via", "cardinality")
                         if a.get(k) != b.get(k)]
                self.add(subject, ChangeClass.BREAKING, "relationship changed: " + "; ".join(diffs))

    def project_checks(self, kind, old_checks, new_checks):
        strip = lambda c: {k: v for k, v in c.items() if k != "path"}  # noqa: E731
        renamer = _rename_reconcile if kind == "reconcile" else _rename_coverage
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

    # -- scopes ----------------------------------------------------------------------------------
    def scope(self) -> Plan:
        new = self.new.entities
        changes = sorted({f.change for f in self.findings}, key=_change_order)
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
            if new[name]["scd"] == "type2":
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


_PROJECT_SUBJECTS = ("relationship", "reconcile", "coverage")


def _change_order(c: Change):
    """Entity by entity (the entity's own line first), then the project-level checks."""
    kind, _, rest = c.subject.partition(":")
    project_level = kind in _PROJECT_SUBJECTS
    entity = "" if project_level else rest.split(".")[0]
    return (project_level, entity, kind != "entity", c.subject, list(ChangeClass).index(c.change_class), c.detail)


def _identity(rule: dict) -> tuple:
    return (rule["rule"], rule.get("column"), rule["name"])


def _params(rule: dict, entity: dict) -> dict:
    """What a rule's verdict depends on besides the value. A field rule's `column_type` is left
    out (a type change is its own row of the table), except for `coercible`, whose verdict *is*
    the cast: its parameters are the declared type and the chain that casts to it."""
    p = {k: v for k, v in rule.items() if k not in _RULE_META and k != "column_type"}
    # spellings that judge alike compare alike: a set's order and repeats, a number's notation
    if rule["rule"] == "in_set":
        p["values"] = sorted(set(p["values"]), key=lambda v: (type(v).__name__, v))
    for bound in ("min", "max"):
        if isinstance(p.get(bound), dict) and p[bound].get("kind") == "number":
            p[bound] = dict(p[bound], value=format(Decimal(p[bound]["value"]).normalize(), "f"))
    if rule["rule"] == "in_enum":
        p["spellings"] = sorted(_spellings(entity, rule["column"]))
    if rule["rule"] == "coercible":
        # a chain without a cast cannot fail one: its other steps do not move the verdict
        p["column_type"] = next((c["type"] for c in entity["columns"] if c["name"] == rule["column"]), None)
        p["chain"] = sorted((_freeze(c["steps"]) if c["casts"] else "no cast" for m in entity["mappings"]
                             for c in m["columns"] if c["name"] == rule["column"]), key=repr)
    return p


def _spellings(entity: dict, column: str) -> set[str]:
    """Raw spellings of the last enum_map in the column's chain(s): with the targets, the values
    an in_enum rule admits."""
    out: set[str] = set()
    for m in entity["mappings"]:
        for c in m["columns"]:
            if c["name"] != column:
                continue
            maps = [s for s in c["steps"] if s.get("op") == "enum_map"]
            if maps:
                out.update(str(p[0]) for p in maps[-1]["pairs"])
    return out


def _admits_more(kind: str, old: dict, new: dict) -> bool | None:
    """Do the new parameters admit a value the old rejected? True, False, or None (undecidable)."""
    if kind == "in_set":
        return bool(set(map(_member, new["values"])) - set(map(_member, old["values"])))
    if kind == "in_enum":
        before = set(old["values"]) | set(old["spellings"])
        after = set(new["values"]) | set(new["spellings"])
        return bool(after - before)
    if kind in ("range", "length"):
        bounds = [b for b in ("min", "max") if b in old or b in new]
        if any((b in old) != (b in new) for b in bounds):
            return None  # mismatched bound sets
        more = False
        for b in bounds:
            x, y = _bound(kind, old[b]), _bound(kind, new[b])
            if x is None or y is None or x[0] != y[0]:
                return None
            if (b == "min" and y[1] < x[1]) or (b == "max" and y[1] > x[1]):
                more = True
        return more
    if kind == "charset":
        if ("allow" in old) != ("allow" in new):
            return None
        if "allow" in old:
            return bool(set(new["allow"]) - set(old["allow"]))
        return bool(set(old["forbid"]) - set(new["forbid"]))
    return None  # pattern, expression, coercible, referential pairs, ...: undecidable


def _member(v):
    return (type(v).__name__, v)


def _bound(kind: str, b):
    """A comparable bound: (kind, value) or None."""
    if kind == "length":
        return ("int", int(b))
    if not isinstance(b, dict):
        return None
    try:
        if b["kind"] == "number":
            return ("number", Decimal(b["value"]))
        text = b["value"].replace("T", " ")
        if b["kind"] == "date":
            return ("date", datetime.fromisoformat(text))
        if b["kind"] == "timestamp":
            return ("timestamp", datetime.fromisoformat(text if " " in text else text + " 00:00:00"))
    except (InvalidOperation, ValueError, KeyError, AttributeError):
        return None
    return None


def _params_detail(kind: str, old: dict, new: dict, admits: bool | None) -> str:
    diffs = []
    for k in sorted(set(old) | set(new)):
        if old.get(k) == new.get(k):
            continue
        if k == "chain":
            diffs.append("chain changed")
        elif k == "column_type" and isinstance(old.get(k), dict) and isinstance(new.get(k), dict):
            diffs.append(f"type {_type(old[k])} -> {_type(new[k])}")
        elif k in ("values", "spellings", "allow", "forbid") and isinstance(old.get(k), list) and isinstance(new.get(k), list):
            gained = [v for v in new[k] if v not in old[k]]
            lost = [v for v in old[k] if v not in new[k]]
            bits = ([f"+{_show(gained)}"] if gained else []) + ([f"-{_show(lost)}"] if lost else [])
            diffs.append(f"{k} {' '.join(bits)}")
        else:
            diffs.append(f"{k} {_show(_plain(old.get(k)))} -> {_show(_plain(new.get(k)))}")
    verdict = {True: "admits more", False: "admits nothing new", None: "admission undecidable"}[admits]
    return f"{kind} parameters changed ({'; '.join(diffs)}; {verdict})"


def _plain(v):
    if isinstance(v, dict) and set(v) == {"kind", "value"}:
        return v["value"]
    return v


def _describe(rule: dict) -> str:
    on = f" on `{rule['column']}`" if rule.get("column") else ""
    disposition = (f"on_missing {rule['on_missing']}" if rule["rule"] == "referential"
                   else f"on_fail {rule['disposition']}")
    implicit = ", implicit" if rule.get("implicit") else ""
    return f"{rule['rule']}{on}, {disposition}{implicit}"


def _column_sources(entity: dict) -> dict[str, list[tuple]]:
    out: dict[str, list[tuple]] = {}
    for m in entity["mappings"]:
        for c in m["columns"]:
            # the final cast to the declared type belongs to the type, whose change is its own row
            steps = [st for st in c["steps"] if not st.get("final")]
            out.setdefault(c["name"], []).append((m["source"], c["source_column"], c["json_path"], _freeze(steps)))
    return {k: sorted(v, key=repr) for k, v in out.items()}


def _where(sources: list[tuple]) -> str:
    return ", ".join(f"{s}.{col}" + (f" {path}" if path else "") for s, col, path, _ in sources)


def _freeze(v):
    if isinstance(v, dict):
        return tuple(sorted((k, _freeze(x)) for k, x in v.items()))
    if isinstance(v, list):
        return tuple(_freeze(x) for x in v)
    return v


def _spec_type(t: dict) -> SpecType:
    return SpecType(t["name"], t.get("precision", 0), t.get("scale", 0))


def _type(t: dict) -> str:
    return str(_spec_type(t))


def _percent(bp) -> str:
    """A threshold in basis points as the spec writes it (none: not declared)."""
    if bp is None:
        return "none"
    whole, part = divmod(bp, 100)
    return f"{whole}%" if not part else f"{whole}.{part:02d}".rstrip("0") + "%"


def _names(items) -> str:
    return ", ".join(f"`{x}`" for x in sorted(items))


# the IR keeps a partition's column and its time bucket apart; `days(ts)` -> `months(ts)` moves
# every `unique` slice, so both count
_BUCKET_FN = {"day": "days", "month": "months", "year": "years", "hour": "hours"}


def _partitions(ir: dict) -> list[str]:
    buckets = ir.get("partition_buckets") or [None] * len(ir["partition_by"])
    return [f"{_BUCKET_FN[b]}({c})" if b else c for c, b in zip(ir["partition_by"], buckets)]


def _show(v) -> str:
    if isinstance(v, list):
        return "[" + ", ".join(_show(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {_show(x)}" for k, x in v.items()) + "}"
    return str(v)


# -- renames ------------------------------------------------------------------------------------
def _rename_entity(ir: dict, ren: dict[str, str], all_renames: dict[str, dict[str, str]]) -> dict:
    r = lambda c: ren.get(c, c)  # noqa: E731
    ir = copy.deepcopy(ir)
    name = ir["entity"]
    ir["key"] = [r(c) for c in ir["key"]]
    for c in ir["columns"]:
        c["name"] = r(c["name"])
    for m in ir["mappings"]:
        for c in m["columns"]:
            c["name"] = r(c["name"])
    if ir["dedupe"]:
        for o in ir["dedupe"]["order"]:
            if not o["metadata"]:
                o["column"] = r(o["column"])
    ir["partition_by"] = [r(c) for c in ir["partition_by"]]
    for rule in ir["rules"]:
        col = rule.get("column")
        if rule["rule"] == "referential":
            parent = all_renames.get(rule["parent"], {})
            rule["pairs"] = [[r(f), parent.get(t, t)] for f, t in rule["pairs"]]
            rule["column"] = r(col) if col else col
        elif col in ren:
            rule["column"] = ren[col]
            rule["name"] = renamed_rule_name(rule["name"], col, ren[col])
        if "columns" in rule:
            rule["columns"] = [r(c) for c in rule["columns"]]
    for a in ir.get("asserts", []):
        if a["column"] in ren:
            a["column"] = ren[a["column"]]
            a["name"] = assert_name(name, a["column"], a["kind"])
    return ir


def _rename_relationship(rel: dict, renames: dict[str, dict[str, str]]) -> dict:
    f, t = renames.get(rel["from"], {}), renames.get(rel["to"], {})
    if not f and not t:
        return rel
    return dict(rel, via={f.get(a, a): t.get(b, b) for a, b in rel["via"].items()})


def _rename_reconcile(check: dict, renames: dict[str, dict[str, str]]) -> dict:
    check = copy.deepcopy(check)
    for side in ("left", "right"):
        s = check[side]
        ren = renames.get(s["entity"], {})
        s["column"] = ren.get(s["column"], s["column"])
        s["by"] = [ren.get(b, b) for b in s["by"]]
    check["keys"] = list(check["left"]["by"])
    return check


def _rename_coverage(check: dict, renames: dict[str, dict[str, str]]) -> dict:
    f, t = renames.get(check["from"], {}), renames.get(check["to"], {})
    return dict(check, pairs=[[f.get(a, a), t.get(b, b)] for a, b in check["pairs"]])
