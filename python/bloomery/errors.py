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
    stage = "parse"


# -- typecheck -----------------------------------------------------------------------------
class UnknownTransformError(BloomeryError):
    stage = "typecheck"


class TypeCheckError(BloomeryError):
    stage = "typecheck"


# -- resolve -------------------------------------------------------------------------------
class MissingReference(BloomeryError):
    stage = "resolve"


class ResolutionError(BloomeryError):
    stage = "resolve"


# -- guardrails ----------------------------------------------------------------------------
class GuardrailError(BloomeryError):
    stage = "guardrail"


class QuarantineRetentionMissing(GuardrailError):
    pass


class DedupeTieBreakMissing(GuardrailError):
    pass


class DedupeDispositionConflict(GuardrailError):
    pass


class IngestionMetadataMissing(GuardrailError):
    pass


class RedactionConflict(GuardrailError):
    pass


class AssertLoweringError(GuardrailError):
    pass


class FreshnessWithoutIngestionMetadata(GuardrailError):
    pass


class ClassificationUngranted(GuardrailError):
    pass


# -- compile / emit ------------------------------------------------------------------------
class UnsupportedByTarget(BloomeryError):
    stage = "compile"


class EmitError(BloomeryError):
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
        for e in errors:
            print(str(e), file=sys.stderr)
        print(f"{len(errors)} error(s); nothing was written.", file=sys.stderr)
    return 1
