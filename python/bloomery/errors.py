"""Every refusal bloomery makes, under one root.

Each error carries where it was found (file, line, column, spec path) and, where one helps, a
hint. Stages collect errors instead of stopping at the first, and report them together, sorted
by location (`BloomeryErrors`), so a user fixes a spec in one pass.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable


@dataclass(frozen=True, order=True)
class Location:
    file: str = ""
    line: int = 0
    column: int = 0
    path: str = ""  # spec path: "entities.order_item.dedupe.tie_break"

    def __str__(self) -> str:
        where = self.file or "<spec>"
        if self.line:
            where += f":{self.line}:{self.column}"
        return f"{where}: {self.path}" if self.path else where


class BloomeryError(Exception):
    """Root of every error bloomery raises on purpose."""

    stage = "compile"

    def __init__(self, message: str, location: Location | None = None, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.location = location or Location()
        self.hint = hint

    def __str__(self) -> str:
        text = f"{self.location}: {type(self).__name__}: {self.message}"
        if self.hint:
            text += f" (hint: {self.hint})"
        return text

    def as_dict(self) -> dict:
        return {
            "error": type(self).__name__,
            "stage": self.stage,
            "file": self.location.file,
            "line": self.location.line,
            "column": self.location.column,
            "path": self.location.path,
            "message": self.message,
            "hint": self.hint,
        }

    def sort_key(self):
        loc = self.location
        return (loc.file, loc.line, loc.column, loc.path, type(self).__name__, self.message)


class Refusal(BloomeryError):
    """Raised by a pure checker (a transform chain, an `expression` rule, a portable regex, a
    charset) that knows what is wrong but not where the spec says it: the compiler catches it and
    reports a located error of the right class (TypeCheckError, GuardrailError, ...). Its text is
    the message alone; the location is the caller's to add."""

    def __init__(self, message: str, hint: str | None = None):
        super().__init__(message, None, hint)

    def __str__(self) -> str:
        return Exception.__str__(self)


# -- parse ---------------------------------------------------------------------------------
class SpecParseError(BloomeryError):
    """A spec file that cannot be read as a spec: not YAML, not the schema's shape, a grammar
    the reference refuses (a type, a path, a name, a retention, a regex outside the subset)."""

    stage = "parse"


# -- typecheck -----------------------------------------------------------------------------
class UnknownTransformError(BloomeryError):
    """A transform the registry does not know (the closest name is suggested)."""

    stage = "typecheck"


class TypeCheckError(BloomeryError):
    """A chain or rule that does not typecheck: arity, argument kind, input type, precision,
    a terminal type the field's type cannot hold."""

    stage = "typecheck"


# -- resolve -------------------------------------------------------------------------------
class MissingReference(BloomeryError):
    """A mapping that names an entity or a field the entity model does not declare."""

    stage = "resolve"


class ResolutionError(BloomeryError):
    """Mappings that cannot be put together into their entity (a key column outside `key:`,
    one field mapped twice, two mappings of one entity on one source)."""

    stage = "resolve"


# -- guardrails ----------------------------------------------------------------------------
class GuardrailError(BloomeryError):
    """What the spec alone shows would lose or corrupt rows at run time; the named subclasses
    are the guardrails the reference lists by name."""

    stage = "guardrail"


class QuarantineRetentionMissing(GuardrailError):
    """A rule can quarantine rows (implicit `coercible` included) of an entity with no
    `quarantine:` block saying how long rejected rows are kept."""


class DedupeTieBreakMissing(GuardrailError):
    """`dedupe` without `tie_break`: two rows of a key could tie, and the survivor would be
    arbitrary."""


class DedupeDispositionConflict(GuardrailError):
    """An explicit `coercible` weaker than `fail` on a column dedupe orders by."""


class IngestionMetadataMissing(GuardrailError):
    """A dedupe or quarantine entity whose mapping does not read all three ingestion
    metadata columns."""


class RedactionConflict(GuardrailError):
    """`redact` names a column the mapping also reads (and so publishes)."""


class AssertLoweringError(GuardrailError):
    """An `assert:` that is ill-typed or on a field no mapping fills."""


class FreshnessWithoutIngestionMetadata(GuardrailError):
    """Source freshness on a mapping whose entity does not require `_ingested_at`."""


class ClassificationUngranted(GuardrailError):
    """A non-public field published by an entity without `grants:`."""


# -- compile / emit ------------------------------------------------------------------------
class UnsupportedByTarget(BloomeryError):
    """A step or rule the chosen target engine cannot run (refused before any file is written)."""

    stage = "compile"


class EmitError(BloomeryError):
    """A project the emitter cannot write as dbt files (two generated tests of one name)."""

    stage = "emit"


# -- plan -----------------------------------------------------------------------------------
class PlanError(BloomeryError):
    """Two spec versions cannot be compared (different IR versions, an unreadable snapshot)."""

    stage = "plan"


class RenameTargetMissing(PlanError):
    """A field's `renamed_from` names a field the old spec does not have: a typo, or a one-shot
    hint left behind after the rename was deployed."""


class ContractViolation(PlanError):
    """A change drops or narrows a field a declared consumer contract still reads."""


class BloomeryErrors(BloomeryError):
    """Several errors found in one pass; `.collected` holds them sorted by location."""

    def __init__(self, errors: Iterable[BloomeryError]):
        self.collected = sorted(errors, key=BloomeryError.sort_key)
        first = self.collected[0] if self.collected else None
        super().__init__(
            f"{len(self.collected)} error(s) in the spec",
            first.location if first else None,
        )

    def __str__(self) -> str:
        return "\n".join(str(e) for e in self.collected)


@dataclass
class ErrorSink:
    """Collects errors of one run; `raise_if_any` turns them into one BloomeryErrors."""

    errors: list[BloomeryError] = field(default_factory=list)

    def add(self, error: BloomeryError) -> None:
        self.errors.append(error)

    def extend(self, errors: Iterable[BloomeryError]) -> None:
        self.errors.extend(errors)

    def raise_if_any(self) -> None:
        if self.errors:
            raise BloomeryErrors(self.errors)


def errors_of(exc: BloomeryError) -> list[BloomeryError]:
    """The single errors an exception stands for."""
    return exc.collected if isinstance(exc, BloomeryErrors) else [exc]


def print_errors(exc: BloomeryError, fmt: str) -> int:
    """Every error of `exc`, sorted by location, as text on stderr or JSON on stdout; the exit code
    of a refused spec (1). The one way a command says its errors."""
    import json
    import sys
    errors = sorted(errors_of(exc), key=BloomeryError.sort_key)
    if fmt == "json":
        print(json.dumps([e.as_dict() for e in errors], indent=2))
    else:
        from .terminal import inert
        for e in errors:
            print(inert(e), file=sys.stderr)   # a refusal quotes spec values: one inert line each
        print(f"{len(errors)} error(s); nothing was written.", file=sys.stderr)
    return 1
