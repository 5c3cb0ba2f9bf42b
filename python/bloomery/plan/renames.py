"""Field renames (`renamed_from`): read from the new spec's facts, then applied to the old IR so
that a renamed field compares equal to itself in every rule, key, dedupe order, relationship and
check that names it. A rename is its own row of the table; nothing else may see it as a drop and
an add.
"""
from __future__ import annotations

import copy
from dataclasses import replace

from ..errors import PlanError, RenameTargetMissing
from ..resolve.ir import Entity
from ..resolve.naming import assert_name, renamed_rule_name
from .change import ChangeClass


class RenameDiffs:
    """The rename part of the comparison (mixed into `_Differ`, diff.py): reads `self.facts`,
    `self.old`, `self.new`, `self.renames` and records through `self.add`."""

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

    def renamed_old_entities(self) -> dict[str, Entity]:
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

    def _old_name(self, entity, field_name):
        for source, target in self.renames.get(entity, {}).items():
            if target == field_name:
                return source
        return field_name


def _rename_entity(ir: Entity, ren: dict[str, str], all_renames: dict[str, dict[str, str]]) -> Entity:
    r = lambda c: ren.get(c, c)  # noqa: E731
    rules = []
    for rule in ir.rules:
        col = rule.column
        if rule.kind == "referential":
            parent = all_renames.get(rule.parent, {})
            rule = replace(rule, pairs=tuple((r(f), parent.get(t, t)) for f, t in rule.pairs), column=r(col) if col else col)
        elif col in ren:
            rule = replace(rule, column=ren[col], name=renamed_rule_name(rule.name, col, ren[col]))
        if "columns" in rule.args:
            rule = replace(rule, args=dict(rule.args, columns=[r(c) for c in rule.args["columns"]]))
        rules.append(rule)
    asserts = [dict(a, column=ren[a["column"]], name=assert_name(ir.name, ren[a["column"]], a["kind"]))
               if a["column"] in ren else a for a in ir.asserts]
    return replace(
        ir, key=tuple(map(r, ir.key)), columns=tuple(replace(c, name=r(c.name)) for c in ir.columns),
        mappings=tuple(replace(m, columns=tuple(replace(c, name=r(c.name)) for c in m.columns)) for m in ir.mappings),
        dedupe=replace(ir.dedupe, order=tuple(o if o.metadata else replace(o, column=r(o.column))
                                              for o in ir.dedupe.order)) if ir.dedupe else None,
        partition_by=tuple(map(r, ir.partition_by)), rules=tuple(rules), asserts=tuple(asserts))


def rename_relationship(rel: dict, renames: dict[str, dict[str, str]]) -> dict:
    f, t = renames.get(rel["from"], {}), renames.get(rel["to"], {})
    if not f and not t:
        return rel
    return dict(rel, via={f.get(a, a): t.get(b, b) for a, b in rel["via"].items()})


def rename_reconcile(check: dict, renames: dict[str, dict[str, str]]) -> dict:
    check = copy.deepcopy(check)
    for side in ("left", "right"):
        s = check[side]
        ren = renames.get(s["entity"], {})
        s["column"] = ren.get(s["column"], s["column"])
        s["by"] = [ren.get(b, b) for b in s["by"]]
    check["keys"] = list(check["left"]["by"])
    return check


def rename_coverage(check: dict, renames: dict[str, dict[str, str]]) -> dict:
    f, t = renames.get(check["from"], {}), renames.get(check["to"], {})
    return dict(check, pairs=[[f.get(a, a), t.get(b, b)] for a, b in check["pairs"]])
