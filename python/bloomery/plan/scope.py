"""Who else a replay concerns, and in which order the replays run.

A referential rule judges a child against its parent's admitted rows, so when a parent's
rejects come back its children must be re-judged too (product page, "A replayed parent brings
its children back"):

- a child whose rule has `on_missing: quarantine` holds its orphans in its own reject table:
  it joins replay_scope, and so do its own such children, transitively;
- a child whose rule has `on_missing: unknown_member` or `flag` kept its orphans (rewritten or
  flagged): it can only be rebuilt from bronze, so it is named in backfill_scope, with the limit
  that rows bronze no longer holds cannot be restored.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..resolve.ir import Entity


@dataclass(frozen=True)
class Edge:
    child: str
    parent: str
    relationship: str
    rule: str
    on_missing: str


def referential_edges(entities: dict[str, Entity]) -> list[Edge]:
    """Every referential rule of the (new) project as a child -> parent edge."""
    out = []
    for name, ir in entities.items():
        for r in ir.rules:
            if r.kind == "referential" and r.parent in entities:
                out.append(Edge(name, r.parent, r.relationship, r.name, r.on_missing))
    return sorted(out, key=lambda e: (e.child, e.parent, e.relationship))


@dataclass
class Propagation:
    replay: set[str]
    reached: dict[str, list[Edge]] = field(default_factory=dict)   # joined replay through these edges
    limited: dict[str, list[Edge]] = field(default_factory=dict)   # backfill-only children


def propagate(seeds: set[str], entities: dict[str, Entity]) -> Propagation:
    """Close `seeds` over quarantine edges; name the unknown_member/flag children of the result."""
    edges = referential_edges(entities)
    replay = set(seeds)
    reached: dict[str, list[Edge]] = {}
    changed = True
    while changed:  # a fixpoint: chains of any length, and cycles, terminate
        changed = False
        for e in edges:
            if e.on_missing != "quarantine" or e.parent not in replay or e.child in seeds:
                continue
            if not entities[e.child].quarantine:
                continue  # cannot happen for a compiled project: a quarantine rule needs the block
            if e not in reached.setdefault(e.child, []):
                reached[e.child].append(e)
            if e.child not in replay:
                replay.add(e.child)
                changed = True
    reached = {k: v for k, v in reached.items() if v}
    limited: dict[str, list[Edge]] = {}
    for e in edges:
        # a child in replay_scope through another rule still kept these orphans: named here too
        if e.on_missing in ("unknown_member", "flag") and e.parent in replay:
            limited.setdefault(e.child, []).append(e)
    return Propagation(replay, reached, limited)


def parents_first(members: set[str], entities: dict[str, Entity]) -> list[str]:
    """Order `members` parents first (over every referential edge between them), ties by name.

    A cycle has no parent-first order: when every remaining member waits on another, the cycle
    that waits on nothing outside itself is broken at its first member by name, and
    parent-first order resumes from there."""
    parents: dict[str, set[str]] = {m: set() for m in members}
    for e in referential_edges(entities):
        if e.child in members and e.parent in members and e.child != e.parent:
            parents[e.child].add(e.parent)
    remaining = set(members)
    order: list[str] = []
    while remaining:
        ready = [m for m in remaining if not (parents[m] & remaining)]
        if ready:
            pick = min(ready)
        else:
            pick = min(min(c) for c in _top_components(remaining, parents))
        order.append(pick)
        remaining.discard(pick)
    return order


def _top_components(nodes: set[str], parents: dict[str, set[str]]) -> list[set[str]]:
    """Strongly connected components of `nodes` that wait on no node outside themselves."""
    comps = _sccs(nodes, parents)
    return [c for c in comps if not any((parents[n] & nodes) - c for n in c)]


def _sccs(nodes: set[str], parents: dict[str, set[str]]) -> list[set[str]]:
    """Tarjan's algorithm, iterative, in name order (deterministic)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[set[str]] = []
    counter = 0
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(parents[root] & nodes)))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(parents[nxt] & nodes))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = set()
                while True:
                    n = stack.pop()
                    on_stack.discard(n)
                    comp.add(n)
                    if n == node:
                        break
                out.append(comp)
    return out
