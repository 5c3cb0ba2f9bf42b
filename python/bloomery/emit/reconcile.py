"""The `reconcile:` checks: per check, `<check>__reconcile` (left and right per key) and its test.

Separate because a check spans two entities, so it belongs to neither entity's files, and it
reads the graph fact `unknown_member` of both sides.
"""
from __future__ import annotations

import yaml

from .audits import _tagged, _test
from .jinja_literal import literal
from .nodes import SQL_HEADER, YAML_HEADER, _config, _tags


def _reconcile_sql(check: dict, entities: dict) -> str:
    sides = {}
    for side in ("left", "right"):
        entity = entities[check[side]["entity"]]
        sides[side] = dict(check[side], member=entity.unknown_member)
    check = dict(check, **sides)
    return (SQL_HEADER + "{%- set check = " + literal(check) + " -%}\n"
            + _config(materialized="table", tags=_tags(check["left"]["entity"], check["right"]["entity"]))
            + "{{ bloomery.reconcile(check, ref(" + literal(check["left"]["entity"]) + "), ref("
            + literal(check["right"]["entity"]) + ")) }}\n")


def _reconcile_yaml(checks: list[dict]) -> str:
    models = []
    for c in checks:
        severity = "error" if c["on_fail"] == "fail" else "warn"
        models.append({
            "name": f"{c['name']}__reconcile",
            "description": f"Reconcile `{c['name']}`: left and right per key, within {c['tolerance']}.",
            "data_tests": _tagged([_test("bloomery.bloomery_reconcile", f"{c['name']}_reconcile",
                                         f"Keys whose sides differ by more than {c['tolerance']} ({c['on_fail']}).",
                                         severity)], _tags(c["left"]["entity"], c["right"]["entity"])),
        })
    return YAML_HEADER + yaml.safe_dump({"version": 2, "models": models}, sort_keys=False, allow_unicode=True, width=120)
