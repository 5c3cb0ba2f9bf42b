"""The transforms section of docs/spec-keys.md, written from the compiler's registry (chain.py):
the names, arguments, types and examples users read are the ones the type-check enforces."""
from __future__ import annotations

from .chain import REGISTRY


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown() -> list[str]:
    """The section's lines (a heading, a paragraph, one table row per transform)."""
    out = ["## Transforms", "",
           "The steps of a mapping's `transform:` chain, generated from the compiler's registry "
           "(`python/bloomery/transforms/chain.py`). A chain starts from the bronze text; each step "
           "takes the type the one before produced, and a final cast to the field's declared type is "
           "added when the chain ends on another (assignable) type. A step is written `name`, "
           "`{name: argument}`, `{name: [arguments]}` or `{name: ..., args: [...]}`. In an entity that "
           "joined the quality system a value that does not convert is a coercion failure, judged by "
           "the column's `coercible` rule; outside it, the run stops naming the value.", "",
           "| transform | arguments | input → output | what it does | example |", "|---|---|---|---|---|"]
    for name, sig in REGISTRY.items():
        out.append(f"| `{name}` | {_cell(sig.params)} | {_cell(sig.types)} | {_cell(sig.doc)} | "
                   f"`{_cell(sig.example)}` |")
    out.append("")
    return out
