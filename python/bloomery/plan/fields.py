"""Field changes: a field added or dropped, its type widened or narrowed, `required`,
`canonical` and `classification` changed, and the mapping that fills it (source column, JSON
path, transform chain). A widening keeps every stored value; a new chain restates history.
"""
from __future__ import annotations

from ..resolve.ir import Entity
from ..transforms.types import assignable
from .change import ChangeClass
from .values import freeze, spec_type, type_name


class FieldDiffs:
    """The field part of the comparison (mixed into `_Differ`, diff.py): reads `self.facts`
    and the renames (`self._old_name`) and records through `self.add`."""

    def fields(self, name, o, n):
        old = {c.name: c.type for c in o.columns}
        new = {c.name: c.type for c in n.columns}
        for f in sorted(set(old) | set(new)):
            subject = f"field:{name}.{f}"
            if f not in old:
                self.add(subject, ChangeClass.ADDITIVE,
                         f"field added ({type_name(new[f])}); existing rows read NULL until rebuilt", name)
                continue
            if f not in new:
                self.add(subject, ChangeClass.BREAKING, f"field dropped ({type_name(old[f])})", name)
                continue
            ot, nt = old[f], new[f]
            if ot != nt:
                if assignable(spec_type(ot), spec_type(nt)):
                    self.add(subject, ChangeClass.WIDENING, f"type widened: {type_name(ot)} -> {type_name(nt)}", name, backfill=True)
                else:
                    self.add(subject, ChangeClass.BREAKING, f"type narrowed or changed: {type_name(ot)} -> {type_name(nt)}", name)
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

    def mapped_columns(self, name, o, n):
        """Transform chain or source of a column changed: the entity restates its history."""
        old, new = _column_sources(o), _column_sources(n)
        both = {c.name for c in o.columns} & {c.name for c in n.columns}
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


def _column_sources(entity: Entity) -> dict[str, list[tuple]]:
    out: dict[str, list[tuple]] = {}
    for m in entity.mappings:
        for c in m.columns:
            # the final cast to the declared type belongs to the type, whose change is its own row
            steps = [st for st in c.steps if not st.get("final")]
            out.setdefault(c.name, []).append((m.source, c.source_column, c.json_path, freeze(steps)))
    return {k: sorted(v, key=repr) for k, v in out.items()}


def _where(sources: list[tuple]) -> str:
    return ", ".join(f"{s}.{col}" + (f" {path}" if path else "") for s, col, path, _ in sources)
