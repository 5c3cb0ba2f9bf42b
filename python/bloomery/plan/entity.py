"""Entity-level changes: the entity's shape (grain, key, scd, materialization, partitioning),
its grants, dedupe, quarantine block (reject table, redaction, raw columns), asserts and source
freshness. Fields and rules of the entity have their own modules (fields.py, rules.py).
"""
from __future__ import annotations

from ..resolve.ir import Entity
from .change import ChangeClass
from .values import names, percent, show


class EntityDiffs:
    """The entity-level part of the comparison (mixed into `_Differ`, diff.py): reads
    `self.facts`, `self.old`, `self.new` and records through `self.add`."""

    def shape(self, name, o, n):
        """Grain, key, history and layout: what the entity's table is."""
        subject = f"entity:{name}"
        for key in ("grain", "key", "scd"):
            before, after = getattr(o, key), getattr(n, key)
            if before != after:
                self.add(subject, ChangeClass.BREAKING, f"{key} changed: {show(before)} -> {show(after)}", name)
        if self.facts is not None:
            om = self.facts[0]["entities"].get(name, {}).get("materialization")
            nm = self.facts[1]["entities"].get(name, {}).get("materialization")
            if om != nm:
                self.add(subject, ChangeClass.BREAKING, f"materialization changed: {om} -> {nm}", name)
        if _partitions(o) != _partitions(n):
            self.add(subject, ChangeClass.RESTATING,
                     f"partition_by changed: {show(_partitions(o))} -> {show(_partitions(n))}", name, backfill=True)

    def grants(self, name, o, n):
        old = set((o.grants or {}).get("select", []))
        new = set((n.grants or {}).get("select", []))
        if new - old:
            self.add(f"entity:{name}", ChangeClass.ADDITIVE, f"select granted to {names(new - old)}", name)
        if old - new:
            self.add(f"entity:{name}", ChangeClass.BREAKING, f"select revoked from {names(old - new)}", name)

    def dedupe(self, name, o, n):
        a, b = o.declared_dedupe, n.declared_dedupe
        if a == b:
            return
        order = lambda d: ", ".join(x.column for x in d.order)  # noqa: E731
        if a is None:
            detail = f"dedupe added (latest by {order(b)})"
        elif b is None:
            detail = f"dedupe removed (was latest by {order(a)})"
        else:
            detail = f"dedupe order changed: {order(a)} -> {order(b)}"
        self.add(f"dedupe:{name}", ChangeClass.RESTATING, detail, name, backfill=True)

    def quarantine(self, name, o, n):
        a, b = o.quarantine, n.quarantine
        subject = f"quarantine:{name}"
        if a is None and b is None:
            return
        if a is None:
            self.add(subject, ChangeClass.ADDITIVE, f"quarantine added (retention {b.retention}): "
                     f"`{name}__reject` is created", name)
            return
        if b is None:
            self.add(subject, ChangeClass.BREAKING, f"quarantine removed: `{name}__reject` is no longer built and "
                     "its unresolved rows can no longer be replayed", name)
            return
        if a.retention != b.retention:
            self.add(subject, ChangeClass.ADDITIVE, f"retention changed: {a.retention} -> {b.retention}", name)
        for key, what in (("warn_above_bp", "warn_above"), ("error_above_bp", "error_above")):
            # the quarantine-rate test's thresholds: what dbt reports, never what a row does
            if getattr(a, key) != getattr(b, key):
                self.add(subject, ChangeClass.ADDITIVE, f"{what} changed: {percent(getattr(a, key))} -> "
                         f"{percent(getattr(b, key))} (the `{name}_quarantine_rate` test)", name)
        widened = set(b.redact) - set(a.redact)
        narrowed = set(a.redact) - set(b.redact)
        if widened:
            # restated by the reject model's redact post-hook (macros/reject/redact_rejects.sql),
            # which the final `dbt build` of every plan runs: no rebuild, no run-operation
            self.add(subject, ChangeClass.RESTATING,
                     f"redact widened ({names(widened)}): the next `dbt build` removes them from `raw` of the rows "
                     f"`{name}__reject` already holds, and new reject rows never keep them", name)
        if narrowed:
            self.add(subject, ChangeClass.ADDITIVE, f"redact narrowed ({names(narrowed)}): new reject rows keep them", name)
        old_maps = {m.source: m for m in o.mappings}
        for m in n.mappings:
            prev = old_maps.get(m.source)
            if prev is None:
                continue
            if prev.version != m.version:
                self.add(subject, ChangeClass.ADDITIVE,
                         f"reject mapping_version of {m.name}: {prev.version} -> {m.version}", name)
            gained = set(m.raw_columns) - set(prev.raw_columns) - narrowed
            lost = set(prev.raw_columns) - set(m.raw_columns) - widened
            if gained:
                self.add(subject, ChangeClass.ADDITIVE, f"`raw` of {m.name} gains {names(gained)}", name)
            if lost:
                self.add(subject, ChangeClass.RESTATING,
                         f"`raw` of {m.name} loses {names(lost)}: rejects stored before keep them, new ones do not",
                         name)

    def asserts(self, name, o, n):
        old = {a["name"]: a for a in o.asserts}
        new = {a["name"]: a for a in n.asserts}
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


# the IR keeps a partition's column and its time bucket apart; `days(ts)` -> `months(ts)` moves
# every `unique` slice, so both count
_BUCKET_FN = {"day": "days", "month": "months", "year": "years", "hour": "hours"}


def _partitions(ir: Entity) -> list[str]:
    return [f"{_BUCKET_FN[b]}({c})" if b else c for c, b in zip(ir.partition_by, ir.partition_buckets, strict=True)]
