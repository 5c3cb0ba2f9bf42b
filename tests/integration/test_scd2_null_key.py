"""Issue 38, type 2 history with a NULL key: a key field that is not `required` may be delivered
NULL, and such a row is kept, its own dedupe group per source row (docs/design.md, "Type 2
versions"). So it is its own version chain per source row: dbt's snapshot matches rows to their
current version with `=`, which a NULL key never satisfies, so before the fix every build that
fed such a row inserted it again as another current version and conservation failed.

One spec, three type 2 entities fed the same bronze history (`full`, `incremental_by_key`, and
`full` with `dedupe:`), one build each: S1 and two NULL-key rows (n-1, n-2) arrive; n-1 is
delivered again unchanged and n-2 changed; n-1 changes, n-2 is delivered again unchanged and a
third NULL-key row (n-3) arrives. (`quarantine:` gives every entity its ingestion metadata: the
source row identity a NULL key's versions are chained by.) Each engine builds it once; the tests read what each build left.
"""
from __future__ import annotations

import pytest

from .harness import ENGINES, engine_project, specs_folder

ENTITIES = {
    # name: (materialization, dedupe declared)
    "nk_full": ("full", False),
    "nk_incr": ("incremental_by_key", False),
    "nk_dd": ("full", True),
}
DEDUPE = "    dedupe: {keep: latest_by, field: _ingested_at, tie_break: [_load_id]}\n"
COLUMNS = ["sku", "amount", "_load_id", "_ingested_at", "_source_row_id"]
LOADS = [
    [("S1", "10.00", "l1", "2024-01-01 00:00:00", "r-1"), (None, "5.00", "l1", "2024-01-01 00:00:00", "n-1"),
     (None, "7.00", "l1", "2024-01-01 00:00:00", "n-2")],
    [(None, "5.00", "l2", "2024-01-02 00:00:00", "n-1"), (None, "8.00", "l2", "2024-01-02 00:00:00", "n-2")],
    [(None, "6.00", "l3", "2024-01-03 00:00:00", "n-1"), (None, "8.00", "l3", "2024-01-03 00:00:00", "n-2"),
     (None, "9.00", "l3", "2024-01-03 00:00:00", "n-3")],
]


def _specs(tmp):
    model = "spec_version: 1\nentities:\n"
    files = {}
    for name, (kind, dedupe) in ENTITIES.items():
        model += (f"  {name}:\n    grain: one row per product and validity interval\n    materialization: {kind}\n"
                  f"    key: [sku]\n    scd: type2\n"
                  '    fields: {sku: {type: string}, amount: {type: "decimal(10,2)"}}\n'
                  "    quarantine: {retention: 90d}\n" + (DEDUPE if dedupe else ""))
        files[f"{name}.yaml"] = (
            f"mapping_version: 1\nsource: erp__{name}\ntarget: {name}\nkey: {{sku: {{from: \"$.sku\"}}}}\n"
            'fields: {amount: {from: "$.amount", transform: [{to_decimal: [10, 2]}]}}\n'
            'unmapped: ["$._load_id", "$._ingested_at", "$._source_row_id"]\n')
    files["model.yaml"] = model
    return specs_folder(tmp, files)


@pytest.fixture(scope="module", params=ENGINES)
def history(request, tmp_path_factory):
    """Build the history once per engine: each build's dbt result and, per entity, its versions
    (sku, amount, source row, current)."""
    tmp = tmp_path_factory.mktemp(f"scd2_null_{request.param}")
    project = engine_project(request.param, tmp, request, _specs(tmp))
    builds = []
    for i, load in enumerate(LOADS):
        for name in ENTITIES:
            project.write_bronze(f"erp__{name}", COLUMNS, load, append=i > 0)
        if i == 0:
            assert project.compile() == 0
        result = project.dbt("build", check=False)
        builds.append({
            "result": result,
            "versions": {name: project.query(
                f"select sku, cast(amount as varchar(20)), _source_row_id, dbt_valid_to is null from main.{name} "
                "order by _source_row_id, dbt_valid_from") for name in ENTITIES},
        })
    return project, builds


def test_every_build_exits_0_with_every_audit_passing(history):
    _, builds = history
    for i, build in enumerate(builds):
        statuses = build["result"].statuses
        assert build["result"].success, (i, {k: v for k, v in statuses.items() if v not in ("success", "pass")})
        for name in ENTITIES:
            assert statuses[f"{name}_conservation"] == "pass", (i, name)


def test_each_null_key_source_row_is_exactly_one_current_version(history):
    _, builds = history
    expected_current = [
        [("S1", "10.00", "r-1"), (None, "5.00", "n-1"), (None, "7.00", "n-2")],
        [("S1", "10.00", "r-1"), (None, "5.00", "n-1"), (None, "8.00", "n-2")],
        [("S1", "10.00", "r-1"), (None, "6.00", "n-1"), (None, "8.00", "n-2"), (None, "9.00", "n-3")],
    ]
    for i, build in enumerate(builds):
        for name in ENTITIES:
            current = sorted((v[:3] for v in build["versions"][name] if v[3]), key=lambda v: v[2])
            assert current == sorted(expected_current[i], key=lambda v: v[2]), (i, name)


def test_a_null_key_source_row_keeps_its_own_history(history):
    """Delivered again unchanged, a NULL-key row is no new version; changed, its version is closed
    and the new one current, in the chain of its source row."""
    _, builds = history
    for name in ENTITIES:
        chains = {}
        for sku, amount, row, current in builds[2]["versions"][name]:
            chains.setdefault(row, []).append((sku, amount, current))
        assert chains == {
            "n-1": [(None, "5.00", False), (None, "6.00", True)],
            "n-2": [(None, "7.00", False), (None, "8.00", True)],
            "n-3": [(None, "9.00", True)],
            "r-1": [("S1", "10.00", True)],
        }, name
