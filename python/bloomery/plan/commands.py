"""The dbt commands a plan needs, in the order they must run, and the plan as text or JSON.

1. Backfill the entities whose own spec changed: `dbt build --full-refresh` of each entity's
   `__staged` node and everything downstream. `__staged` is where rows are judged, so it must
   be in the selection; the reject table is `full_refresh: false` and only takes new rejects
   (and resolves those the new spec now keeps). The quality mart is left out: it keeps one
   snapshot per run (it is `full_refresh: false` too), and the snapshot worth keeping is the
   one the final build takes, after the replays.
2. Replay, parents first: a child replayed before its parent's rows are back would stay held.
   A child that reaches a replayed parent through unknown_member or flag is rebuilt once every
   such parent has been replayed, and before its own replay if it has one: a full refresh
   after its replay would drop what the replay admitted from rows bronze no longer holds. Its
   rebuild selects the entity's own nodes only, never what is downstream of it, for the same
   reason (a descendant may already have been replayed).
3. A normal `dbt build`: descendants of the replayed entities and the quality mart catch up,
   and whatever the additive changes added is built.
"""
from __future__ import annotations

import json

from ..resolve import ProjectIR
from ..terminal import inert
from ..vocabulary import THRESHOLD_TAG



def replay_command(entity: str) -> str:
    return f"dbt run-operation bloomery.replay --args '{{entity: {entity}}}'"


def _own_nodes(entity: str, ir: dict) -> list[str]:
    # a type 2 entity is a snapshot of its `__kept` view; the ledger records the rebuild's verdicts
    # (a full refresh judges every delivery afresh), and selecting it runs the conservation audit
    kept = [f"{entity}__kept", entity] if ir.scd == "type2" else [entity]
    return ([f"{entity}__staged"] + kept + ([f"{entity}__reject"] if ir.quarantine else [])
            + ([f"{entity}__ledger"] if ir.metadata else []))


def commands_for(plan, new: ProjectIR, own: list[str], limited: dict[str, set[str]]) -> list[str]:
    if not plan.changes:
        return []
    # the snapshots (`<entity>__quality`, whose post-hook appends to the mart) are taken by the
    # final `dbt build`, not by a backfill step: one plan makes one run of the history
    snapshots = [f"{n}__quality" for n in new.counted()]
    # the quality thresholds (quarantine rate, drift) are judged by the final `dbt build`: a spec
    # change moves rates, and a backfill that exits 1 on a rate would stop a `set -e` script
    # before its replays; a real failure (a blocking audit, a model error) still exits non-zero
    thresholds = f"tag:{THRESHOLD_TAG}"
    exclude = " --exclude " + " ".join(snapshots + [thresholds])
    out = []
    if own:
        out.append("dbt build --full-refresh --select " + " ".join(f"{e}__staged+" for e in own) + exclude)

    def rebuild(children):
        nodes = [n for c in children for n in _own_nodes(c, new.entities[c])]
        out.append("dbt build --full-refresh --select " + " ".join(nodes) + " --exclude " + thresholds)

    replayed: set[str] = set()
    pending = dict(limited)
    for entity in plan.replay_scope:
        if entity in pending and pending[entity] <= replayed:
            rebuild([entity])
            del pending[entity]
        out.append(replay_command(entity))
        replayed.add(entity)
        if new.entities[entity].scd == "type2" and set(plan.replay_scope) - replayed:
            # a type 2 replay re-delivers to bronze: its rows arrive with the next run
            out.append(f"dbt build --select {entity}__staged+{exclude}")
    if pending:
        rebuild([c for c in plan.backfill_scope.entities if c in pending])
    out.append("dbt build")
    return out


def to_json(plan) -> str:
    return json.dumps(plan.as_dict(), indent=2)


def to_text(plan) -> str:
    if plan.empty:
        return "no changes: the specs compile to the same project.\n"
    lines = []
    width = max(len(c.change_class.value) for c in plan.changes)
    counts = {}
    for c in plan.changes:
        counts[c.change_class.value] = counts.get(c.change_class.value, 0) + 1
    lines.append(f"{len(plan.changes)} change(s): " + ", ".join(f"{n} {k}" for k, n in counts.items()))
    for c in plan.changes:
        lines.append(f"  {c.change_class.value.upper():<{width}}  {c.subject}  {c.detail}")
    lines.append("")
    bf = plan.backfill_scope
    if bf.entities:
        lines.append("backfill: " + ", ".join(bf.entities)
                     + ("  (restates history)" if bf.restates_history else ""))
    elif bf.restates_history:
        lines.append("backfill: none (history is restated without a rebuild)")
    else:
        lines.append("backfill: none")
    if plan.replay_scope:
        lines.append("replay, parents first: " + ", ".join(plan.replay_scope))
        for entity, why in plan.replay_reasons.items():
            lines.append(f"  {entity}: {why}")
    else:
        lines.append("replay: none")
    if bf.limits:
        lines.append("")
        lines.append("limits:")
        for entity, text in bf.limits.items():
            lines.append(f"  {text}")
    if plan.breaking:
        lines.append("")
        lines.append(f"{len(plan.breaking)} breaking change(s): consumers of these relations must be migrated by "
                     "hand; the commands below do not do that.")
    if plan.notes:
        lines.append("")
        lines.append("notes:")
        lines.extend(f"  {n}" for n in plan.notes)
    lines.append("")
    lines.append("run, in this order:")
    lines.extend(f"  {cmd}" for cmd in plan.commands)
    return "\n".join(inert(line) for line in lines) + "\n"   # lines quote spec values
