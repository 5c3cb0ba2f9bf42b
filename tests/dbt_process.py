"""What running dbt many times in one process needs, shared by every suite that does (the
integration harness, the reused property project, the rendered dialects)."""
from __future__ import annotations


def forget_repeated_behavior_flags() -> None:
    """Call before every dbt invocation. dbt-adapters appends an adapter's own behavior flags to its
    module-level default list on every adapter it makes (`BaseAdapter.behavior`'s setter extends
    the list it is given, which is `DEFAULT_BASE_BEHAVIOR_FLAGS`), and dbt makes a fresh adapter on
    every invocation. After n invocations of an adapter with flags (PostgreSQL has one, Databricks
    and the other warehouses several) the list holds them n times, and every new adapter renders
    all of them, each through `inspect.stack()`: an invocation's cost grows with the number before
    it, and a process's with their square (50 PostgreSQL property examples took 143 s, 250 took
    1,483 s; the fifth dialect rendered in one process took four times the first). Lookups return
    a flag's first copy, so keeping one copy per name changes nothing else."""
    from dbt.adapters.base import impl
    flags = impl.DEFAULT_BASE_BEHAVIOR_FLAGS
    first = {}
    for flag in flags:
        first.setdefault(flag["name"], flag)
    flags[:] = first.values()
