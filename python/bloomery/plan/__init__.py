"""`bloomery plan`: classify the change between two spec versions, and name the backfill and
the replays it needs (spec reference, section 7; product page, "plan() knows about all of this").

    from bloomery.plan import load_project, plan
    p = plan(load_project(old_dir), load_project(new_dir))
    p.changes          # [(subject, class, detail)]
    p.backfill_scope   # entities rebuilt from bronze, restates_history, limits
    p.replay_scope     # entities whose reject tables are re-judged, parents first
    p.commands         # the dbt commands, in order
"""
from .commands import to_json, to_text
from .change import BackfillScope, Change, ChangeClass, Plan
from .diff import plan
from .facts import IR_VERSION, load_project
from .snapshot import load_compiled, snapshot_path, write_snapshot

__all__ = ["BackfillScope", "Change", "ChangeClass", "IR_VERSION", "Plan", "load_compiled", "load_project", "plan",
           "snapshot_path", "to_json", "to_text", "write_snapshot"]
