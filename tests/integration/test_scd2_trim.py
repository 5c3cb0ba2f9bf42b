"""Issue 38, bronze is a window, on type 2 entities: a load deleted from bronze keeps the verdicts
and the versions of its deliveries, and no build fails because bronze was trimmed.

One spec, three type 2 entities fed the same bronze history (`full`, `incremental_by_key`, and
`incremental_by_partition` with `dedupe:`). The history, one build each: l1 delivers S1 and S2;
l2 changes S1, delivers S3, and retries S2's source row unchanged (its version keeps l1 as its
`_load_id`: no change to a snapshot); the user deletes l2 from bronze and builds; a
`--full-refresh`; a plain build. A `full` entity and a full refresh judge the bronze they read:
S1's newest delivery in bronze (l1) becomes its current version again, while S3, which bronze no
longer holds at all, stays current (a snapshot deletes nothing) with its kept verdict in the
ledger (docs/design.md, "Bronze retention"). Each engine builds it once.
"""
from __future__ import annotations

import pytest

from .harness import ENGINES, engine_project, specs_folder

ENTITIES = {
    # name: (materialization, dedupe declared)
    "price_full": ("full", False),
    "price_incr": ("incremental_by_key", False),
    "price_dd_part": ("incremental_by_partition", True),
}
DEDUPE = "    dedupe: {keep: latest_by, field: _ingested_at, tie_break: [_load_id]}\n"
COLUMNS = ["sku", "amount", "_load_id", "_ingested_at", "_source_row_id"]
L1 = [("S1", "10.00", "l1", "2024-01-01 00:00:00", "r-1"), ("S2", "5.00", "l1", "2024-01-01 00:00:00", "r-2")]
L2 = [("S1", "12.00", "l2", "2024-01-02 00:00:00", "r-3"), ("S3", "7.00", "l2", "2024-01-02 00:00:00", "r-4"),
      ("S2", "5.00", "l2", "2024-01-02 00:00:00", "r-2")]      # r-2 again, unchanged: a retry
STEPS = [("load", L1), ("load", L2), ("delete", "l2"), ("refresh", None), ("build", None)]


def _specs(tmp):
    model = "spec_version: 1\nentities:\n"
    files = {}
    for name, (kind, dedupe) in ENTITIES.items():
        model += (f"  {name}:\n    grain: one row per product and validity interval\n    materialization: {kind}\n"
                  f"    key: [sku]\n    scd: type2\n"
                  '    fields: {sku: {type: string}, amount: {type: "decimal(10,2)"}}\n'
                  f"    quarantine: {{retention: 90d}}\n" + (DEDUPE if dedupe else ""))
        files[f"{name}.yaml"] = (
            f"mapping_version: 1\nsource: erp__{name}\ntarget: {name}\nkey: {{sku: {{from: \"$.sku\"}}}}\n"
            'fields: {amount: {from: "$.amount", transform: [{to_decimal: [10, 2]}], '
            'quality: [{rule: range, max: 100, on_fail: quarantine}]}}\n'
            'unmapped: ["$._load_id", "$._ingested_at", "$._source_row_id"]\n')
    files["model.yaml"] = model
    return specs_folder(tmp, files)


@pytest.fixture(scope="module", params=ENGINES)
def history(request, tmp_path_factory):
    """Each build's dbt result and, per entity, its current versions (sku, amount, source row,
    `_load_id`) and its ledger (source row, load, route)."""
    tmp = tmp_path_factory.mktemp(f"scd2_trim_{request.param}")
    project = engine_project(request.param, tmp, request, _specs(tmp))
    builds = []
    for i, (do, what) in enumerate(STEPS):
        for name in ENTITIES:
            if do == "load":
                project.write_bronze(f"erp__{name}", COLUMNS, what, append=i > 0)
            elif do == "delete":
                project.execute(f"delete from main.erp__{name} where _load_id = '{what}'")
        if i == 0:
            assert project.compile() == 0
        result = project.dbt("build", *(["--full-refresh"] if do == "refresh" else []), check=False)
        builds.append({
            "step": do,
            "result": result,
            "current": {name: project.query(
                f"select sku, cast(amount as varchar(20)), _source_row_id, _load_id from main.{name} "
                "where dbt_valid_to is null order by sku, _source_row_id") for name in ENTITIES},
            "ledger": {name: project.query(f"select _source_row_id, _load_id, route from main.{name}__ledger "
                                           "order by 1, 2") for name in ENTITIES},
        })
    return project, builds


def test_every_build_exits_0_with_conservation_passing(history):
    _, builds = history
    for i, build in enumerate(builds):
        statuses = build["result"].statuses
        assert build["result"].success, (i, build["step"], {k: v for k, v in statuses.items() if v not in ("success", "pass")})
        for name in ENTITIES:
            assert statuses[f"{name}_conservation"] == "pass", (i, name)


def test_the_current_versions_after_the_trim(history):
    _, builds = history
    before = [("S1", "12.00", "r-3", "l2"), ("S2", "5.00", "r-2", "l1"), ("S3", "7.00", "r-4", "l2")]
    # a build that judges all of bronze versions S1's newest delivery bronze holds; S3 stays
    judged_again = [("S1", "10.00", "r-1", "l1"), ("S2", "5.00", "r-2", "l1"), ("S3", "7.00", "r-4", "l2")]
    for name, (kind, _) in ENTITIES.items():
        assert builds[1]["current"][name] == before, name
        # an incremental build after the trim has nothing to judge: nothing moves
        assert builds[2]["current"][name] == (judged_again if kind == "full" else before), name
        assert builds[3]["current"][name] == builds[4]["current"][name] == judged_again, name


def test_the_trimmed_deliveries_keep_their_kept_verdicts(history):
    """S3's delivery is gone from bronze but its version is current: the ledger still records it
    kept, through the `full` build and the full refresh (which replace the rest of the ledger)."""
    _, builds = history
    for i in (2, 3, 4):
        for name in ENTITIES:
            ledger = builds[i]["ledger"][name]
            assert ("r-4", "l2", "keep") in ledger, (i, name, ledger)
            assert ("r-1", "l1", "keep" if i > 2 or ENTITIES[name][0] == "full" else "deduped") in ledger, (i, name, ledger)
