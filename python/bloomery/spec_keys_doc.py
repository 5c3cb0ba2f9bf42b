"""The spec-key reference (docs/spec-keys.md), written from the JSON Schemas.

The schemas are the one description of the grammar, so the reference is generated from them
rather than kept by hand: `python -m bloomery.spec_keys_doc > docs/spec-keys.md`. A test
checks the committed file is current, which is what keeps every key documented.
"""
from __future__ import annotations

import json
import sys

from .transforms import reference as transforms_reference
from .spec.documents import SCHEMA_DIR

KINDS = [("entity_model.schema.json", "Entity model (`spec_version: 1`)"),
         ("mapping.schema.json", "Mapping (`mapping_version: 1`)"),
         ("catalog.schema.json", "Catalog (`catalog_version: 1`)")]


def _resolve(schema: dict, root: dict) -> dict:
    seen = 0
    while "$ref" in schema and seen < 20:
        name = schema["$ref"].split("/")[-1]
        schema = {**root["$defs"][name], **{k: v for k, v in schema.items() if k != "$ref"}}
        seen += 1
    return schema


def _walk(schema: dict, root: dict, path: str, rows: list, depth: int = 0):
    schema = _resolve(schema, root)
    if depth > 8:
        return
    for key, sub in schema.get("properties", {}).items():
        resolved = _resolve(sub, root)
        here = f"{path}.{key}" if path else key
        example = resolved.get("examples", [None])[0]
        rows.append((here, resolved.get("title", ""), resolved.get("description", ""), example))
        _walk(resolved, root, here, rows, depth + 1)
    for sub in schema.get("allOf", []):
        then = sub.get("then")
        if then:
            cond = sub.get("if", {}).get("properties", {}).get("rule", {}).get("const")
            _walk(then, root, f"{path}[rule: {cond}]" if cond else path, rows, depth + 1)
    for keyword in ("additionalProperties", "items"):
        sub = schema.get(keyword)
        if isinstance(sub, dict) and sub:
            suffix = ".<name>" if keyword == "additionalProperties" else "[]"
            _walk(sub, root, path + suffix, rows, depth + 1)
    for keyword in ("oneOf", "anyOf"):
        for sub in schema.get(keyword, []):
            _walk(sub, root, path, rows, depth + 1)


def render() -> str:
    out = ["# Spec keys", "",
           "Every key a v1 spec file may hold, generated from the JSON Schemas in `schemas/` "
           "(`python -m bloomery.spec_keys_doc > docs/spec-keys.md`). The behaviour behind each key is in "
           "the guides; the grammar is here.", ""]
    for file, heading in KINDS:
        root = json.loads((SCHEMA_DIR / file).read_text(encoding="utf-8"))
        rows: list = []
        _walk(root, root, "", rows)
        out += [f"## {heading}", "", root.get("description", ""), "", "| key | what | example |", "|---|---|---|"]
        seen = set()
        for path, title, description, example in rows:
            if path in seen:
                continue
            seen.add(path)
            text = f"**{title}.** {description}" if title else description
            ex = "" if example is None else "`" + json.dumps(example, ensure_ascii=False).replace("|", "\\|") + "`"
            cell = text.replace("|", "\\|").replace("\n", " ")
            out.append(f"| `{path}` | {cell} | {ex} |")
        out.append("")
        if file == "mapping.schema.json":
            out += transforms_reference.markdown()  # the transforms: from the compiler's registry
    return "\n".join(out)


if __name__ == "__main__":
    sys.stdout.write(render())
