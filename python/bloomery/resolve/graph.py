"""The facts about an entity that depend on the other entities (the graph of referential rules,
coverage and unknown members): the last resolve pass, over the whole project.

Here rather than in emit because they are decisions about the pipeline, not spellings of it: the
emitter, `bloomery plan` and the report all read the same entity IR, and none recomputes them.
"""
from __future__ import annotations

from dataclasses import replace

from .ir import Entity


def graph_facts(entities: dict[str, Entity], coverage: list[dict]) -> dict[str, Entity]:
    """The entities with the facts that depend on the others: `unknown_member` (the parent column
    a child rewrites orphans to '__unknown__' in, so the parent carries that member row), each
    `unique` rule's slice, the coverage checks an entity is the child of, and per referential
    rule `published` (the rule reads the parent's previously published rows without a dbt ref,
    because a ref would close a cycle)."""
    members = {r.parent: r.pairs[0][1] for e in entities.values() for r in e.rules
               if r.kind == "referential" and r.on_missing == "unknown_member" and r.parent in entities}
    # Depth-first over child -> parent edges in name order: an edge back onto the stack closes
    # a cycle and is cut, so each cycle is broken deterministically where it reaches its first
    # member by name.
    cut: set[tuple[str, str]] = set()         # (child, rule name)
    state: dict[str, int] = {}

    def visit(name: str):
        state[name] = 1
        for r in sorted((r for r in entities[name].rules if r.kind == "referential"), key=lambda r: r.parent):
            if r.parent not in entities:
                continue
            if state.get(r.parent) == 1:
                cut.add((name, r.name))
            elif r.parent not in state:
                visit(r.parent)
        state[name] = 2

    for name in sorted(entities):
        if name not in state:
            visit(name)

    def decorated(e: Entity) -> Entity:
        rules = []
        for r in e.rules:
            if r.kind == "unique":
                # uniqueness holds within a partition: rows of one day for `days(col)`, not one instant
                r = replace(r, slice=tuple({"column": c, "bucket": b}
                                           for c, b in zip(e.partition_by, e.partition_buckets, strict=True)))
            if (e.name, r.name) in cut:
                r = replace(r, published=True)
            rules.append(r)
        children = tuple(dict(c, member=members.get(c["to"])) for c in coverage
                         if c["from"] == e.name and c["to"] in entities)
        return replace(e, rules=tuple(rules), unknown_member=members.get(e.name), coverage=children or None)

    return {n: decorated(e) for n, e in entities.items()}
