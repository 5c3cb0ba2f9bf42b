"""Stage 4 for an entity's rules: each field rule checked against its column's type and chain,
its generated name and disposition (implicit `coercible`, dedupe's forced `fail`), and each
referential rule against its relationship."""
from __future__ import annotations

import dataclasses
import difflib
import json
from typing import Any

from .. import errors as E
from ..guardrails.charset import CHARSET_MAX, _CharsetError, _codepoints
from ..guardrails.literals import _bound_literal, _enum_admissible
from ..guardrails.pattern import PATTERN_MAX_POSITIONS, _pattern_positions
from ..spec.dbt_metadata import _show
from ..spec.yaml_source import format_path
from ..transforms.chain import Lowered, can_fail
from ..transforms.types import SpecType
from ..vocabulary import UNKNOWN_MEMBER
from .ir import Disposition, Rule
from .naming import rule_name, unique_name
from .tree import SpecTree
from .values import split_source_path, type_ir


def field_rules(tree: SpecTree, name, entity, doc, lowered, types, dedupe_cols, generated, scope=None,
                seen=None) -> list[Rule]:
    """The field rules one mapping declares (and the implicit `coercible` of each column it maps).
    On a merged entity (`scope` is the mapping's name) the same rule declared by several mappings
    is one rule: `seen` maps what makes two declarations the same to the rule's name and the
    mappings that declare it, which the caller gives the rule once every mapping is read."""
    label = tree.mapping_label(doc)
    out = []

    def add(base: str, rule: Rule):
        if scope is not None:
            same = (base, rule.kind, rule.column, rule.disposition, rule.implicit,
                    json.dumps(dict(rule.args), sort_keys=True, default=str))
            if same in seen:
                seen[same][1].append(scope)
                return
        rule = dataclasses.replace(rule, name=unique_name(base, generated))
        if scope is not None:
            seen[same] = (rule.name, [scope])
        out.append(rule)
    for section in ("key", "fields"):
        for col, spec in doc.value.get(section, {}).items():
            low: Lowered | None = lowered.get((id(doc), col))
            if low is None:
                continue
            ctype = types[col]
            explicit_coercible = False
            for i, rule in enumerate(spec.get("quality", []) if section == "fields" else []):
                path = (section, col, "quality", i)
                kind = rule["rule"]
                disposition = rule["on_fail"]
                if kind == "coercible":
                    explicit_coercible = True
                    if col in dedupe_cols and Disposition.of(disposition) < Disposition.FAIL:
                        tree.error(E.DedupeDispositionConflict, doc, path + ("on_fail",),
                                   f"`{col}` orders dedupe, so a value that will not cast would leave the surviving "
                                   f"row undefined; its coercible rule must be `fail`, not `{disposition}`",
                                   "write on_fail: fail, or drop the rule (it is implied)", prefix=label)
                args = field_rule_args(tree, doc, path, label, col, ctype, kind, rule, low)
                if args is None:
                    continue
                add(rule_name(col, kind, rule), Rule("", kind, col, Disposition.of(disposition),
                                                     f"{label}.{format_path(path)}", args=args))
            # a nullifying step (nullif, split_part, ...) before a cast does not exempt the column:
            # `coercible` is judged at each cast, on the values that reach it non-NULL, so the
            # step's own NULLs stay silent and a value the cast cannot take still fires
            # and only where the value can fail to coerce: a text column read as text has nothing
            # to catch (spec-reference 3.1, "whose chain contains a cast")
            if explicit_coercible or not can_fail(low, split_source_path(spec["from"])[1] is not None):
                continue
            add(rule_name(col, "coercible", {}),
                Rule("", "coercible", col, Disposition.FAIL if col in dedupe_cols else Disposition.QUARANTINE,
                     f"{label}.{section}.{col}", implicit=True))
    return out


def field_rule_args(tree: SpecTree, doc, path, label, col, ctype: SpecType, kind, rule, low: Lowered) -> dict | None:
    """What a field rule's SQL reads (its column's type and the rule's checked arguments), or None
    when the rule does not apply to the column (the error is reported)."""
    r: dict[str, Any] = {"column_type": type_ir(ctype)}

    def refuse(message, hint=None, cls=E.TypeCheckError, where=()):
        tree.error(cls, doc, path + where, message, hint, prefix=label)

    if kind in ("length", "pattern", "normalize", "charset") and ctype.name != "string":
        refuse(f"`{kind}` judges text, but `{col}` is declared {ctype}",
               "apply it to a string field, or judge this one with range or in_set")
        return None
    if kind == "range":
        if not (ctype.numeric or ctype.temporal):
            refuse(f"`range` compares numbers, dates or timestamps, but `{col}` is declared {ctype}",
                   "use length, in_set or pattern for text")
            return None
        for b in ("min", "max"):
            if b in rule:
                literal = _bound_literal(rule[b], ctype)
                if literal is None:
                    refuse(f"range bound {_show(rule[b])} does not compare with `{col}` ({ctype})",
                           "numbers for int/decimal fields, ISO dates for date fields, ISO timestamps for "
                           "timestamp fields", where=(b,))
                    return None
                r[b] = literal
    elif kind == "length":
        r.update({b: rule[b] for b in ("min", "max") if b in rule})
    elif kind == "pattern":
        positions = _pattern_positions(rule["regex"])
        if positions > PATTERN_MAX_POSITIONS:
            refuse(f"the pattern expands to {positions} character positions once its repeats are counted out; "
                   f"duckdb, postgres and trino refuse or crawl on patterns that large, so a pattern rule stays "
                   f"within {PATTERN_MAX_POSITIONS}", "lower the repeat bounds (e.g. {1,64}), or move the size "
                   "limit into a `length` rule", E.GuardrailError, ("regex",))
            return None
        r["regex"] = rule["regex"]
    elif kind == "in_enum":
        values = _enum_admissible(low)
        if values is None:
            if "enum_map" in low.names:
                last = max(i for i, n in enumerate(low.names) if n == "enum_map")
                after = [n for n in low.names[last + 1:] if n not in ("enum_map", "to_string")]
                message = (f"`in_enum` on `{col}` judges the targets of the last `enum_map`, but "
                           f"`{after[0]}` comes after it and can change the value")
                hint = "move that step before the enum_map, or judge the result with in_set"
            else:
                message = f"`in_enum` on `{col}` needs an `enum_map` in the chain: it judges that map's targets"
                hint = "add {enum_map: [from, to, ...]} to the transform, or use in_set"
            refuse(message, hint, E.GuardrailError)
            return None
        r["values"] = values
    elif kind == "in_set":
        values = rule["values"]
        if ctype.name not in ("string", "int"):
            refuse(f"`in_set` needs a string or int field; `{col}` is declared {ctype}",
                   "use range for numbers and dates")
            return None
        if ctype.name == "int" and not all(isinstance(x, int) and not isinstance(x, bool) for x in values):
            bad = next(x for x in values if not (isinstance(x, int) and not isinstance(x, bool)))
            refuse(f"`in_set` on int field `{col}` needs integer members, got {_show(bad)}",
                   "write the members unquoted, e.g. [1, 2, 3]", where=("values",))
            return None
        r["values"] = [int(x) if ctype.name == "int" else str(x) for x in values]
    elif kind == "charset":
        side = "allow" if "allow" in rule else "forbid"
        try:
            r[side] = _codepoints(rule[side])
        except _CharsetError as exc:
            refuse(str(exc), "codepoints are U+0000..U+10FFFF without the surrogates U+D800-U+DFFF, "
                   f"at most {CHARSET_MAX} in all", E.GuardrailError, (side,) + exc.where)
            return None
    return r


def referential_rule(tree: SpecTree, name, entity, i, rule, relationships, types, rules, by_entity) -> Rule | None:
    model = tree.model
    path = ("entities", name, "quality", i)
    via = rule["via"]
    rel = relationships.get(via)
    if rel is None:
        close = difflib.get_close_matches(via, relationships, n=1)
        tree.error(E.GuardrailError, model, path + ("via",), f"`{via}` is not a declared relationship",
                   f"did you mean `{close[0]}`?" if close else "declare it under `relationships:`")
        return None
    if rel["from"] != name:
        tree.error(E.GuardrailError, model, path + ("via",),
                   f"relationship `{via}` runs from `{rel['from']}`, not from `{name}`",
                   "declare the referential rule on the relationship's `from` entity")
        return None
    if rel["to"] == name:
        tree.error(E.GuardrailError, model, path + ("via",),
                   f"relationship `{via}` points back at `{name}`: a referential rule judges a child against "
                   "another entity's admitted rows", "use a coverage or reconcile check for tree-references")
        return None
    if any(r.kind == "referential" and r.relationship == via for r in rules):
        tree.error(E.GuardrailError, model, path + ("via",), f"a second referential rule on `{via}`",
                   "keep one referential rule per relationship")
        return None
    if by_entity is not None and rel["to"] not in by_entity:
        tree.error(E.GuardrailError, model, path + ("via",),
                   f"relationship `{via}` points at `{rel['to']}`, which no mapping feeds: there would be no silver "
                   "rows to judge against", f"add a mapping with `target: {rel['to']}`, or drop the rule")
        return None
    pairs = tuple((f, t) for f, t in rel["via"].items())
    on_missing = rule["on_missing"]
    if on_missing == "unknown_member":
        fk = pairs[0][0]
        if len(pairs) != 1 or types.get(fk) is None or types[fk].name != "string":
            what = (f"a composite key ({', '.join(p[0] for p in pairs)})" if len(pairs) != 1
                    else f"`{fk}`, declared {types.get(fk)}")
            tree.error(E.GuardrailError, model, path + ("on_missing",),
                       f"unknown_member rewrites the foreign key to '{UNKNOWN_MEMBER}', so it needs one string column; "
                       f"`{via}` has {what}", "use on_missing: quarantine or flag")
            return None
    return Rule(f"{via}_referential", "referential", pairs[0][0] if len(pairs) == 1 else None,
                Disposition.FLAG if on_missing == "unknown_member" else Disposition.of(on_missing), format_path(path),
                relationship=via, parent=rel["to"], pairs=pairs, on_missing=on_missing)
