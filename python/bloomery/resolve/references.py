"""Stage 2, resolve references: mappings to their entity and fields, entity keys, relationships,
canonical links to the catalog, and what a merged entity (several mappings) must satisfy."""
from __future__ import annotations

import difflib

from .. import errors as E
from ..spec.documents import SpecDocument
from .tree import SpecTree


def resolve(tree: SpecTree) -> dict[str, list[SpecDocument]]:
    model = tree.model
    entities = model.value["entities"]
    broken_keys = set()  # entities whose key names a non-field: mapping key checks would only echo it
    for name, entity in entities.items():
        for i, col in enumerate(entity["key"]):
            if col not in entity["fields"]:
                broken_keys.add(name)
                close = difflib.get_close_matches(col, entity["fields"], n=1)
                tree.error(E.MissingReference, model, ("entities", name, "key", i),
                           f"key column `{col}` of entity `{name}` is not one of its fields",
                           f"did you mean `{close[0]}`?" if close else f"declare `{col}` under entities.{name}.fields")
    check_canonical(tree)
    check_relationships(tree)
    by_entity: dict[str, list[SpecDocument]] = {}
    for doc in sorted(tree.mappings, key=lambda d: (str(d.value["source"]), d.file)):
        v = doc.value
        label = tree.mapping_label(doc)
        target = v["target"]
        if target not in entities:
            close = difflib.get_close_matches(target, entities, n=1)
            tree.error(E.MissingReference, doc, ("target",), f"mapping target `{target}` is not an entity",
                       f"did you mean `{close[0]}`?" if close else "declare it under `entities:`", prefix=label)
            continue
        entity = entities[target]
        fields = entity["fields"]
        key = v.get("key", {})
        mapped = v.get("fields", {})
        for section, block in (("key", key), ("fields", mapped)):
            for col in block:
                if col not in fields:
                    close = difflib.get_close_matches(col, fields, n=1)
                    tree.error(E.MissingReference, doc, (section, col),
                               f"`{col}` is not a field of entity `{target}`",
                               f"did you mean `{close[0]}`?" if close else f"declare it under entities.{target}.fields",
                               prefix=label)
        for col in key if target not in broken_keys else ():
            if col in fields and col not in entity["key"]:
                tree.error(E.ResolutionError, doc, ("key", col),
                           f"`{col}` is under `key:` but is not part of entity `{target}`'s key {entity['key']}",
                           "move it under `fields:`", prefix=label)
        for col in entity["key"]:
            if col in fields and col not in key:
                tree.error(E.ResolutionError, doc, ("key",),
                           f"entity key column `{col}` is not mapped under `key:`",
                           f"add `{col}: {{from: \"$.<column>\"}}` under key", prefix=label)
        for col in mapped:
            if col in key:
                tree.error(E.ResolutionError, doc, ("fields", col),
                           f"`{col}` is mapped under both `key:` and `fields:`", "keep it under `key:`", prefix=label)
        same_source = [d for d in by_entity.get(target, []) if d.value["source"] == v["source"]]
        if same_source:
            tree.error(E.ResolutionError, doc, ("source",),
                       f"two mappings of entity `{target}` read source `{v['source']}` (the other is "
                       f"{same_source[0].file}); a merged entity unions different sources",
                       "merge them into one mapping", prefix=label)
            continue
        by_entity.setdefault(target, []).append(doc)
    for name, docs in by_entity.items():
        if len(docs) < 2:
            continue
        entity = entities[name]
        # A merged entity may carry dedupe, quarantine and quality rules (product page): each
        # staged row records the mapping that produced it, the reject table keeps it, replay
        # re-runs that mapping, and a key delivered by two mappings is dedupe's to decide or
        # the blocking `<entity>_source_collision` audit's to refuse.
        # `required` is metadata, checked only here: a union must not leave a required
        # column NULL for every row of one of its sources.
        for fname, fspec in entity["fields"].items():
            if not fspec.get("required") or fname in entity["key"]:
                continue
            for doc in docs:
                if fname not in doc.value.get("fields", {}):
                    tree.error(E.ResolutionError, doc, ("fields",),
                               f"`{fname}` is required on merged entity `{name}`, but this mapping does not map it",
                               f"map `{fname}` here, or drop `required: true` from the field",
                               prefix=tree.mapping_label(doc))
    return by_entity


def check_canonical(tree: SpecTree):
    catalog_fields = (tree.catalog.value.get("canonical_fields") or {}) if tree.catalog else {}
    for name, entity in tree.model.value["entities"].items():
        for fname, fspec in entity["fields"].items():
            link = fspec.get("canonical")
            if link is None or link in catalog_fields:
                continue
            path = ("entities", name, "fields", fname, "canonical")
            if tree.catalog is None:
                tree.error(E.MissingReference, tree.model, path,
                           f"`{fname}` links to canonical field `{link}`, but the project has no catalog",
                           "add a catalog (`catalog_version: 1`) declaring it, or drop `canonical:`")
                continue
            close = difflib.get_close_matches(link, catalog_fields, n=1)
            tree.error(E.MissingReference, tree.model, path,
                       f"`{fname}` links to canonical field `{link}`, which the catalog ({tree.catalog.file}) "
                       "does not declare", f"did you mean `{close[0]}`?" if close else
                       "declare it under the catalog's `canonical_fields:`, or drop `canonical:`")


def check_relationships(tree: SpecTree):
    model = tree.model
    entities = model.value["entities"]
    for i, rel in enumerate(model.value.get("relationships", [])):
        ok = True
        for side in ("from", "to"):
            if rel[side] not in entities:
                ok = False
                close = difflib.get_close_matches(rel[side], entities, n=1)
                tree.error(E.MissingReference, model, ("relationships", i, side),
                           f"relationship `{rel['name']}` names unknown entity `{rel[side]}`",
                           f"did you mean `{close[0]}`?" if close else "declare it under `entities:`")
        if not ok:
            continue
        for fcol, tcol in rel["via"].items():
            for side, col in (("from", fcol), ("to", tcol)):
                fields = entities[rel[side]]["fields"]
                if col not in fields:
                    close = difflib.get_close_matches(col, fields, n=1)
                    tree.error(E.MissingReference, model, ("relationships", i, "via", fcol),
                               f"relationship `{rel['name']}`: `{col}` is not a field of `{rel[side]}`",
                               f"did you mean `{close[0]}`?" if close else None)


def joins_quality(tree: SpecTree, name, docs, ignore_dedupe=True) -> bool:
    entity = tree.model.value["entities"][name]
    if entity.get("quality") or entity.get("quarantine"):
        return True
    if not ignore_dedupe and entity.get("dedupe"):
        return True
    return any(f.get("quality") for d in docs for f in d.value.get("fields", {}).values())
