"""Rule changes, and the replay decision that hangs on them: only a rule whose *old* effective
disposition was `quarantine` can have rows waiting in the reject table, and only its removal,
a relaxation to flag, or parameters that admit something new frees them. Whether new
parameters admit more is decided here where the spec allows it (sets, enums, bounds, charsets)
and said to be undecidable otherwise.
"""
from __future__ import annotations

from datetime import datetime
from decimal import Decimal, InvalidOperation

from ..resolve.ir import Disposition, Entity, Rule, as_data
from .change import ChangeClass
from .values import freeze, show, type_name

# a rule's identity and disposition: compared on their own, never as its parameters
_RULE_META = frozenset({"name", "rule", "column", "disposition", "on_missing", "path", "implicit"})


class RuleDiffs:
    """The rule part of the comparison (mixed into `_Differ`, diff.py): records through
    `self.add` and notes the rejects no replay can reach in `self.notes`."""

    def rules(self, name, o, n):
        old = {_identity(r): r for r in o.rules}
        new = {_identity(r): r for r in n.rules}
        for ident in sorted(set(old) | set(new), key=lambda i: (i[2], i[0], i[1] or "")):
            a, b = old.get(ident), new.get(ident)
            rule_name = (a or b).name
            subject = f"quality:{name}.{rule_name}"
            if a is None:
                self.add(subject, ChangeClass.RESTATING, f"rule added: {_describe(b)}", name, backfill=True)
                continue
            if b is None:
                replay = a.quarantines and n.quarantine is not None
                self.unreplayable(name, a, n)
                self.add(subject, ChangeClass.RESTATING, f"rule removed: {_describe(a)}"
                         + ("; replay: the rows it quarantined may now pass" if replay else ""),
                         name, backfill=True, replay=replay)
                continue
            what = []
            if a.disposition != b.disposition:
                what.append(f"disposition {a.disposition.spec} -> {b.disposition.spec}")
            if a.on_missing != b.on_missing and a.kind == "referential":
                what.append(f"on_missing {a.on_missing} -> {b.on_missing}")
            pa, pb = _params(a, o), _params(b, n)
            admits = None
            if pa != pb:
                admits = _admits_more(a.kind, pa, pb)
                what.append(_params_detail(a.kind, pa, pb, admits))
            if not what:
                continue
            replay = False
            reason = ""
            if a.quarantines and n.quarantine is None:
                self.unreplayable(name, a, n)
            elif a.quarantines:
                if b.disposition is Disposition.FLAG:
                    replay, reason = True, "rows it quarantined are now kept with a flag"
                elif admits is not False and pa != pb:
                    replay = True
                    reason = ("the new parameters admit values the old rejected" if admits else
                              "whether the new parameters admit more cannot be decided from the spec")
            self.add(subject, ChangeClass.RESTATING, "; ".join(what) + (f"; replay: {reason}" if replay else ""),
                     name, backfill=True, replay=replay)

    def unreplayable(self, name, rule, n):
        if rule.quarantines and n.quarantine is None:
            note = (f"`{name}`: rule `{rule.name}` quarantined rows, but the new spec has no quarantine block, "
                    f"so `{name}__reject` cannot be replayed; its unresolved rows stay where they are")
            if note not in self.notes:
                self.notes.append(note)


def _identity(rule: Rule) -> tuple:
    return (rule.kind, rule.column, rule.name)


def _params(rule: Rule, entity: Entity) -> dict:
    """What a rule's verdict depends on besides the value. A field rule's `column_type` is left
    out (a type change is its own row of the table), except for `coercible`, whose verdict *is*
    the cast: its parameters are the declared type and the chain that casts to it."""
    p = {k: v for k, v in as_data(rule).items() if k not in _RULE_META and k != "column_type"}
    # spellings that judge alike compare alike: a set's order and repeats, a number's notation
    if rule.kind == "in_set":
        p["values"] = sorted(set(p["values"]), key=lambda v: (type(v).__name__, v))
    for bound in ("min", "max"):
        if isinstance(p.get(bound), dict) and p[bound].get("kind") == "number":
            p[bound] = dict(p[bound], value=format(Decimal(p[bound]["value"]).normalize(), "f"))
    if rule.kind == "in_enum":
        p["spellings"] = sorted(_spellings(entity, rule.column))
    if rule.kind == "coercible":
        # a chain without a cast cannot fail one: its other steps do not move the verdict
        p["column_type"] = next((c.type for c in entity.columns if c.name == rule.column), None)
        p["chain"] = sorted((freeze(c.steps) if c.casts else "no cast" for m in entity.mappings
                             for c in m.columns if c.name == rule.column), key=repr)
    return p


def _spellings(entity: Entity, column: str) -> set[str]:
    """Raw spellings of the last enum_map in the column's chain(s): with the targets, the values
    an in_enum rule admits."""
    out: set[str] = set()
    for m in entity.mappings:
        for c in m.columns:
            if c.name != column:
                continue
            maps = [s for s in c.steps if s.get("op") == "enum_map"]
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
            diffs.append(f"type {type_name(old[k])} -> {type_name(new[k])}")
        elif k in ("values", "spellings", "allow", "forbid") and isinstance(old.get(k), list) and isinstance(new.get(k), list):
            gained = [v for v in new[k] if v not in old[k]]
            lost = [v for v in old[k] if v not in new[k]]
            bits = ([f"+{show(gained)}"] if gained else []) + ([f"-{show(lost)}"] if lost else [])
            diffs.append(f"{k} {' '.join(bits)}")
        else:
            diffs.append(f"{k} {show(_plain(old.get(k)))} -> {show(_plain(new.get(k)))}")
    verdict = {True: "admits more", False: "admits nothing new", None: "admission undecidable"}[admits]
    return f"{kind} parameters changed ({'; '.join(diffs)}; {verdict})"


def _plain(v):
    if isinstance(v, dict) and set(v) == {"kind", "value"}:
        return v["value"]
    return v


def _describe(rule: Rule) -> str:
    on = f" on `{rule.column}`" if rule.column else ""
    disposition = f"on_missing {rule.on_missing}" if rule.kind == "referential" else f"on_fail {rule.disposition.spec}"
    implicit = ", implicit" if rule.implicit else ""
    return f"{rule.kind}{on}, {disposition}{implicit}"
