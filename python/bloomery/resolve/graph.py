"""The facts about an entity that depend on the other entities (the graph of referential rules,
coverage and unknown members): the last resolve pass, over the whole project.

Here rather than in emit because they are decisions about the pipeline, not spellings of it: the
emitter, `bloomery plan` and the report all read the same entity IR, and none recomputes them.
"""
from __future__ import annotations



def graph_facts(entities: dict[str, dict], coverage: list[dict]) -> dict[str, dict]:
    """The entities with the facts that depend on the others added to their IR:
    `unknown_member` (the parent column a child rewrites orphans to '__unknown__' in, so the
    parent carries that member row) and, per referential rule, `published` (the rule reads the
    parent's previously published rows without a dbt ref, because a ref would close a cycle)."""
    entities = {n: dict(e, rules=[dict(r) for r in e["rules"]]) for n, e in entities.items()}
    for e in entities.values():
        for r in e["rules"]:
            if r["rule"] == "unique":
                # uniqueness holds within a partition: rows of one day for `days(col)`, not one instant
                r["slice"] = [{"column": c, "bucket": b} for c, b in zip(e["partition_by"], e["partition_buckets"], strict=True)]
            if r["rule"] == "referential" and r["on_missing"] == "unknown_member" and r["parent"] in entities:
                entities[r["parent"]]["unknown_member"] = r["pairs"][0][1]
    for c in coverage:
        if c["from"] in entities and c["to"] in entities:
            member = entities[c["to"]].get("unknown_member")   # the parent column of its Unknown member
            entities[c["from"]].setdefault("coverage", []).append(dict(c, member=member))
    # Depth-first over child -> parent edges in name order: an edge back onto the stack closes
    # a cycle and is cut, so each cycle is broken deterministically where it reaches its first
    # member by name.
    state: dict[str, int] = {}

    def visit(name: str):
        state[name] = 1
        for r in sorted((r for r in entities[name]["rules"] if r["rule"] == "referential"), key=lambda r: r["parent"]):
            parent = r["parent"]
            if parent not in entities:
                continue
            if state.get(parent) == 1:
                r["published"] = True
            elif parent not in state:
                visit(parent)
        state[name] = 2

    for name in sorted(entities):
        if name not in state:
            visit(name)
    return entities
