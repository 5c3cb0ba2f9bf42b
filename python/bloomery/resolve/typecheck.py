"""Stage 3, typecheck: declared types, and every mapping's transform chain lowered against its
field's type (transforms/chain.py). The lowered chains are what the IR's columns carry."""
from __future__ import annotations

from .. import errors as E
from ..transforms.chain import ChainError, lower_chain
from ..transforms.types import parse_type, type_problem
from .tree import SpecTree


def typecheck(tree: SpecTree, by_entity) -> dict:
    entities = tree.model.value["entities"]
    for name, entity in entities.items():
        for fname, fspec in entity["fields"].items():
            problem = type_problem(fspec["type"])
            if problem:  # grammar problems stopped the parse stage: this is the precision cap
                tree.error(E.TypeCheckError, tree.model, ("entities", name, "fields", fname, "type"), problem[1],
                           "use at most decimal(38,s)")
    lowered: dict = {}
    for name, docs in by_entity.items():
        fields = entities[name]["fields"]
        for doc in docs:
            label = tree.mapping_label(doc)
            for section in ("key", "fields"):
                for col, spec in doc.value.get(section, {}).items():
                    declared = parse_type(fields[col]["type"]) if col in fields else None
                    if declared is None:
                        continue
                    try:
                        low = lower_chain(spec.get("transform", []), declared)
                    except ChainError as exc:
                        path = (section, col, "transform") + ((exc.index,) if exc.index is not None else ())
                        cls = (E.SpecParseError if exc.malformed else
                               E.UnknownTransformError if exc.unknown else E.TypeCheckError)
                        tree.error(cls, doc, path, exc.message, exc.hint, prefix=label)
                        continue
                    lowered[(id(doc), col)] = low
    return lowered
