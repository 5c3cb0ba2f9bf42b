"""Stage 4 for the document-level checks (spec 3.6): `reconcile` (two aggregates that must agree)
and `coverage` (children per parent along a relationship), each resolved to the entities and
typed columns it compares."""
from __future__ import annotations

import difflib
import re
from decimal import Decimal

from .. import errors as E
from ..spec.yaml_source import format_path
from ..transforms.types import parse_type
from .tree import SpecTree
from .values import type_ir

RECONCILE_AGGS = ("avg", "count", "max", "min", "sum")
_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_RECONCILE_AGG_SIDE = re.compile(
    rf"^(?P<agg>[A-Za-z_]+)\s*\(\s*(?P<entity>{_IDENT})\s*\.\s*(?P<column>{_IDENT})\s*\)\s+by\s+(?P<by>.+)$")
_RECONCILE_BARE_SIDE = re.compile(rf"^(?P<entity>{_IDENT})\s*\.\s*(?P<column>{_IDENT})$")


def _named_checks(tree: SpecTree, section: str, writes: str):
    """Each check of a document section with its spec path. A second check of one name is refused:
    what it writes (`writes`, formatted with the name) would be written twice."""
    names: set[str] = set()
    for i, check in enumerate(tree.model.value.get(section, [])):
        path = (section, i)
        if check["name"] in names:
            tree.error(E.GuardrailError, tree.model, path + ("name",),
                       f"a second {section} check named `{check['name']}`: its {writes.format(check['name'])} "
                       "would be written twice", f"give each {section} check its own name")
            continue
        names.add(check["name"])
        yield path, check


def reconcile_irs(tree: SpecTree, by_entity) -> list[dict]:
    model = tree.model
    out: list[dict] = []
    for path, check in _named_checks(tree, "reconcile", "model `{}__reconcile`"):
        sides = {s: reconcile_side(tree, check[s], path + (s,), by_entity) for s in ("left", "right")}
        if any(v is None for v in sides.values()):
            continue
        left, right = sides["left"], sides["right"]
        if set(left["by"]) != set(right["by"]):
            tree.error(E.GuardrailError, model, path,
                       f"reconcile `{check['name']}` compares values keyed by ({', '.join(left['by'])}) on the left "
                       f"with values keyed by ({', '.join(right['by'])}) on the right: the key sets must match",
                       "aggregate one side `by` the other side's key columns, e.g. "
                       f"sum({right['entity']}.{right['column']}) by {', '.join(left['by'])}")
            continue
        clash = [k for k in left["by"] if _key_type(left, k) != _key_type(right, k)]
        if clash:
            k = clash[0]
            tree.error(E.GuardrailError, model, path,
                       f"reconcile `{check['name']}` joins on `{k}`, declared {_key_type(left, k)} on "
                       f"`{left['entity']}` but {_key_type(right, k)} on `{right['entity']}`",
                       "key columns must have the same type on both sides")
            continue
        for side in (left, right):
            side.pop("key_types")
        mapping = by_entity[left["entity"]][0].value
        out.append({"name": check["name"], "left": left, "right": right, "keys": list(left["by"]),
                    "tolerance": _tolerance(check["tolerance"]), "on_fail": check["on_fail"],
                    "entity": left["entity"], "mapping": f"{mapping['source']}->{left['entity']}",
                    "path": format_path(path)})
    return out


def reconcile_side(tree: SpecTree, text: str, path: tuple, by_entity) -> dict | None:
    model = tree.model
    entities = model.value["entities"]

    def refuse(message, hint=None):
        tree.error(E.GuardrailError, model, path, message, hint)

    m = _RECONCILE_AGG_SIDE.match(text)
    agg = None
    if m:
        agg = m.group("agg")
        if agg not in RECONCILE_AGGS:
            close = difflib.get_close_matches(agg.lower(), RECONCILE_AGGS, n=1)
            refuse(f"`{agg}` is not a reconcile aggregate", f"did you mean `{close[0]}`?" if close
                   else "one of: " + ", ".join(RECONCILE_AGGS))
            return None
        by = [b.strip() for b in m.group("by").split(",")]
        bad = [b for b in by if not re.fullmatch(_IDENT, b)]
        if bad:
            refuse(f"`by {m.group('by')}` is not a list of column names",
                   "write `by col` or `by col_a, col_b`")
            return None
    else:
        m = _RECONCILE_BARE_SIDE.match(text)
        if not m:
            refuse(f"`{text}` is not a reconcile side",
                   "write `<entity>.<column>` or `<agg>(<entity>.<column>) by <col>[, <col>...]` with agg one of "
                   + ", ".join(RECONCILE_AGGS))
            return None
        by = None
    ename, column = m.group("entity"), m.group("column")
    if ename not in entities:
        close = difflib.get_close_matches(ename, entities, n=1)
        refuse(f"`{ename}` is not an entity", f"did you mean `{close[0]}`?" if close else "declare it under `entities:`")
        return None
    docs = by_entity.get(ename, [])
    if not docs:
        refuse(f"entity `{ename}` has no mapping, so there are no rows to reconcile",
               f"add a mapping with `target: {ename}`")
        return None
    if len(docs) > 1:
        refuse(f"entity `{ename}` is merged from {len(docs)} mappings; reconcile reads single-source entities",
               "reconcile against one of its sources' entity instead")
        return None
    entity = entities[ename]
    fields = entity["fields"]
    if column not in fields:
        close = difflib.get_close_matches(column, fields, n=1)
        refuse(f"`{column}` is not a field of `{ename}`", f"did you mean `{close[0]}`?" if close else None)
        return None
    ctype = parse_type(fields[column]["type"])
    if agg != "count" and not ctype.numeric:
        refuse(f"reconcile compares numbers, but {agg + '(' if agg else ''}`{ename}.{column}`{')' if agg else ''} "
               f"is {ctype}", "reconcile an int or decimal column, or count(...) rows")
        return None
    if by is None:
        by = list(entity["key"])
    else:
        seen: set[str] = set()
        for b in by:
            if b in seen:
                refuse(f"`{b}` is repeated in `by`", "list each key column once")
                return None
            seen.add(b)
            if b not in fields:
                close = difflib.get_close_matches(b, fields, n=1)
                refuse(f"`by {b}`: `{b}` is not a field of `{ename}`",
                       f"did you mean `{close[0]}`?" if close else None)
                return None
    return {"agg": agg, "entity": ename, "column": column, "by": by, "column_type": type_ir(ctype),
            "key_types": {b: str(parse_type(fields[b]["type"])) for b in by}}


def coverage_irs(tree: SpecTree, by_entity, relationships) -> list[dict]:
    model = tree.model
    entities = model.value["entities"]
    out: list[dict] = []
    for path, check in _named_checks(tree, "coverage", "audit `{}_coverage`"):
        rel = relationships.get(check["relationship"])
        if rel is None:
            close = difflib.get_close_matches(check["relationship"], relationships, n=1)
            tree.error(E.GuardrailError, model, path + ("relationship",),
                       f"`{check['relationship']}` is not a declared relationship",
                       f"did you mean `{close[0]}`?" if close else "declare it under `relationships:`")
            continue
        if rel["from"] not in entities or rel["to"] not in entities:
            continue  # reported as MissingReference on the relationship
        unmapped = [e for e in (rel["from"], rel["to"]) if e not in by_entity]
        if unmapped:
            tree.error(E.GuardrailError, model, path + ("relationship",),
                       f"coverage `{check['name']}` counts rows of `{rel['from']}` per row of `{rel['to']}`, but "
                       f"no mapping feeds {' nor '.join(f'`{e}`' for e in unmapped)}",
                       f"add a mapping with `target: {unmapped[0]}`, or drop the check")
            continue
        out.append({"name": check["name"], "relationship": rel["name"], "from": rel["from"], "to": rel["to"],
                    "pairs": [[f, t] for f, t in rel["via"].items()], "min": check.get("min", 1),
                    "on_fail": check["on_fail"], "path": format_path(path)})
    return out


def _key_type(side: dict, column: str) -> str:
    return side["key_types"][column]


def _tolerance(value) -> str:
    # the schema admits only non-negative integers and quoted decimals
    return format(Decimal(str(value)).normalize(), "f") if Decimal(str(value)) != 0 else "0"
