"""The resolved project: what the resolve stages hand to emit, plan and report.

Decides the shape of a compiled project (`ProjectIR`, whose entities are frozen `Entity` values),
an entity's materialization when the spec leaves it implicit, and the precedence of rule
dispositions (`Disposition`: fail > quarantine > flag).

Every stage after resolve reads these values and none changes them: a later fact is a new value
(`dataclasses.replace`). `as_data` is the one place an IR value becomes the plain data the
generated models carry for the macros (field names as the macros spell them, dispositions as
their spec strings, tuples as lists).
"""
from __future__ import annotations

import dataclasses
import enum
from collections import abc
from dataclasses import dataclass, field
from typing import Any, Callable

from ..errors import BloomeryError, Location
from ..vocabulary import DELIVERED_KEY

# plain data the macros read as it is (a type's spelling, a check's arguments, dbt metadata)
Data = abc.Mapping[str, Any]


# Bumped whenever the IR's shape changes in a way that makes two IRs incomparable, or the generated
# models change in a way the macros rely on (2: `materialization`, and the ledger the models read;
# 3: the quarantine thresholds, drift settings and dbt metadata, and the mart's `run_started_at`
# pre-hook and `quality_drift` model: a project compiled before them must be compiled again;
# 4: the entity's `route`, which quality_split renders instead of deciding; 5: an expression rule's
# `parts`, joined once by rule_violation, in place of a template the macro substituted into).
IR_VERSION = 5


class Disposition(enum.IntEnum):
    """A rule's on_fail, ordered by precedence: a higher value overrides a lower one."""
    FLAG = 1
    QUARANTINE = 2
    FAIL = 3

    @classmethod
    def of(cls, text: str) -> "Disposition":
        """The disposition named by a spec's on_fail string ("flag", "quarantine", "fail")."""
        return cls[text.upper()]

    @property
    def spec(self) -> str:
        """The disposition as a spec spells it (and the macros read it): "quarantine"."""
        return self.name.lower()


# -- the entity IR -------------------------------------------------------------------------------
# A field's metadata says how as_data writes it: `key` renames it, `omit` leaves it out when it
# is None or False (the macros test those keys with `is defined`/`get`), `inline` merges a
# mapping's keys into the enclosing one.
def _key(name: str) -> dict:
    return {"key": name}


_OMIT = {"omit": True}
_INLINE = {"inline": True}


@dataclass(frozen=True)
class Column:
    """One column of the entity: its type as the cast macros read it (`{"name": "decimal",
    "precision": 12, "scale": 2}`) and whether it is part of the key."""
    name: str
    type: Data
    key: bool


@dataclass(frozen=True)
class MappedColumn:
    """One column a mapping fills: where in bronze it is read and the transform chain's steps."""
    name: str
    source_column: str
    json_path: str | None
    steps: tuple                      # the lowered chain (transforms/chain.py), as the macros read it
    nullifying: bool                  # a step turns some values into NULL without a cast failing
    casts: Any
    path: str                         # spec path, for errors raised after resolve


@dataclass(frozen=True)
class Mapping:
    """One bronze relation feeding the entity (`<source>-><entity>`)."""
    source: str
    name: str = field(metadata=_key("mapping"))
    version: int = field(metadata=_key("mapping_version"))
    columns: tuple[MappedColumn, ...]
    raw_columns: tuple[str, ...]      # what a reject row's payload keeps (redacted columns left out)
    read_columns: tuple[str, ...]
    unmapped: tuple[str, ...]


@dataclass(frozen=True)
class DedupeColumn:
    column: str
    metadata: bool                    # an ingestion metadata column the entity does not publish


@dataclass(frozen=True)
class Dedupe:
    order: tuple[DedupeColumn, ...]   # `latest_by` then its tie breaks
    # not declared: the delivery order a type 2 entity without `dedupe:` ranks its deliveries of a
    # key by, newest first, so one of them is the current version (`delivery_order` below)
    implied: bool = field(default=False, metadata=_OMIT)


def delivery_order() -> Dedupe:
    """The order of a key's deliveries, newest first, for a type 2 entity that declares no
    `dedupe:`: `_ingested_at` (as the timestamp it casts to), then `_load_id`, then (as in every
    dedupe order) `_source_row_id`. Every delivery of a key is a version; the newest is current and
    the older ones are recorded as having lost the key to it (docs/design.md, "Type 2 versions")."""
    return Dedupe((DedupeColumn("_ingested_at", True), DedupeColumn("_load_id", True)), implied=True)


@dataclass(frozen=True)
class Quarantine:
    retention: str
    retention_hours: int
    redact: tuple[str, ...]
    # the quarantine-rate test's thresholds, in basis points (never spec text in SQL)
    warn_above_bp: int
    error_above_bp: int | None


@dataclass(frozen=True)
class Rule:
    """One rule of an entity, with its generated (or authored) name and its disposition."""
    name: str
    kind: str = field(metadata=_key("rule"))      # not_null, range, ..., unique, referential, expression
    column: str | None
    disposition: Disposition
    path: str                                     # spec path of the rule (or of its column, when implicit)
    implicit: bool = field(default=False, metadata=_OMIT)   # the `coercible` every mapped column gets
    # a merged entity's field rule judges the rows of the mappings that declare it
    mappings: tuple[str, ...] | None = field(default=None, metadata=_OMIT)
    # what the check's SQL reads, by kind: column_type; min/max; regex; values; allow/forbid;
    # an expression's parts and columns
    args: Data = field(default_factory=dict, metadata=_INLINE)
    # referential rules
    relationship: str | None = field(default=None, metadata=_OMIT)
    parent: str | None = field(default=None, metadata=_OMIT)
    pairs: tuple[tuple[str, str], ...] | None = field(default=None, metadata=_OMIT)   # (child, parent column)
    on_missing: str | None = field(default=None, metadata=_OMIT)
    published: bool = field(default=False, metadata=_OMIT)  # reads the parent's published rows: a ref would close a cycle
    # unique: the partition columns (and their time buckets) uniqueness holds within
    slice: tuple[Data, ...] | None = field(default=None, metadata=_OMIT)

    @property
    def quarantines(self) -> bool:
        return self.disposition is Disposition.QUARANTINE


@dataclass(frozen=True)
class Route:
    """How `<entity>__staged` routes a judged row: decided here, rendered by
    macros/stages/stage_route.sql. A row takes the first route that applies: `deduped` (it lost
    dedupe to a better row of its key), `held` (an unresolved reject row holds this very
    delivery), `quarantine` (it fired a rule of `divert`), else `keep`. A `fail` rule routes
    nothing: its blocking audit stops the build before anything is published, so fail outranks
    quarantine, which outranks flag."""
    divert: tuple[str, ...]           # the rules whose firing diverts the row to the reject table
    # the rules a row records in `_quality_flags` when it fires them: every rule, so a kept row
    # names its flag (and fail) rules and a diverted row says what diverted it
    flags: tuple[str, ...]
    # entity column -> the `unknown_member` referential rule whose orphans it rewrites to the
    # Unknown member (the one repair the product states openly)
    repair: Data
    # a verdict over an unknown value (SQL NULL: a missing value compared) has not fired; only
    # `not_null` and `coercible` judge NULL, and they say so themselves
    null_fires: bool = False


def route_of(rules: tuple[Rule, ...]) -> Route:
    return Route(divert=tuple(r.name for r in rules if r.quarantines),
                 flags=tuple(r.name for r in rules),
                 repair={r.column: r.name for r in rules if r.kind == "referential" and r.on_missing == "unknown_member"})


@dataclass(frozen=True)
class Entity:
    """One resolved entity: what its models, audits and YAML are generated from."""
    name: str = field(metadata=_key("entity"))
    grain: str
    key: tuple[str, ...]
    scd: str
    # full: every build judges all of bronze; incremental_by_key / incremental_by_partition:
    # a build judges what the ledger does not hold (by_partition judges like by_key)
    materialization: str
    quality: bool                     # a quality spec joins the entity: its rules are judged
    metadata: bool                    # bronze carries ingestion metadata (dedupe or quarantine)
    columns: tuple[Column, ...]
    mappings: tuple[Mapping, ...]
    dedupe: Dedupe | None
    quarantine: Quarantine | None
    rules: tuple[Rule, ...]
    # derived from `rules` whenever an Entity is made (a `replace` of the rules included), so it
    # can never disagree with them
    route: Route = field(init=False)
    # the drift tests' settings, as numbers computed here: only quality_drift reads them
    drift: Data
    schema_changes: str               # what `<entity>_drift` reports of a bronze column change
    grants: Data | None
    partition_by: tuple[str, ...]
    # one per partition_by item: the time bucket a `unique` slice compares, None for a bare column
    partition_buckets: tuple[str | None, ...]
    asserts: tuple[Data, ...]
    # dbt metadata for the generated YAML only (descriptions, meta, tags, the user's tests)
    docs: Data
    # graph facts (resolve/graph.py): the column a child rewrites orphans to the Unknown member
    # in, and the coverage checks this entity is the child of
    unknown_member: str | None = field(default=None, metadata=_OMIT)
    coverage: tuple[Data, ...] | None = field(default=None, metadata=_OMIT)
    # The key that identifies a row, where it differs from `key`: an `unknown_member` rule that
    # rewrites a key column makes orphans of different parents share the published key, so dedupe,
    # the incremental delete, key_unique, source_collision and replay's merge compare the delivered
    # value instead (a column `_bloomery_delivered__<key column>` the entity carries beside it).
    # None when no key column is rewritten. Derived like `route`.
    identity: tuple[str, ...] | None = field(init=False, default=None, metadata=_OMIT)

    def __post_init__(self):
        object.__setattr__(self, "route", route_of(self.rules))
        rewritten = [k for k in self.key if k in self.route.repair]
        object.__setattr__(self, "identity", tuple(DELIVERED_KEY + k if k in rewritten else k for k in self.key)
                           if rewritten else None)

    @property
    def identity_key(self) -> tuple[str, ...]:
        """The columns that identify a row: `identity`, or the key when no key column is rewritten."""
        return self.identity or self.key

    @property
    def delivered(self) -> tuple[tuple[str, str], ...]:
        """(key column, the column carrying its delivered value) for each rewritten key column."""
        return tuple((k, i) for k, i in zip(self.key, self.identity_key) if k != i)

    @property
    def declared_dedupe(self) -> Dedupe | None:
        """The `dedupe:` the spec declares (not a type 2 entity's implied delivery order)."""
        return None if self.dedupe is None or self.dedupe.implied else self.dedupe

    def rule_named(self, name: str) -> Rule | None:
        return next((r for r in self.rules if r.name == name), None)


def as_data(value):
    """An IR value as the plain data a generated model carries (dicts, lists, strings, numbers)."""
    if isinstance(value, Disposition):
        return value.spec
    if dataclasses.is_dataclass(value):
        out: dict[str, Any] = {}
        for f in dataclasses.fields(value):
            item = getattr(value, f.name)
            if f.metadata.get("omit") and (item is None or item is False):
                continue
            if f.metadata.get("inline"):
                out.update({k: as_data(v) for k, v in item.items()})
            else:
                out[f.metadata.get("key", f.name)] = as_data(item)
        return out
    if isinstance(value, (list, tuple)):
        return [as_data(v) for v in value]
    if isinstance(value, abc.Mapping):
        return {k: as_data(v) for k, v in value.items()}
    return value


@dataclass
class ProjectIR:
    entities: dict[str, Entity]               # entity name -> entity IR (resolve/entity.py)
    relationships: list[dict] = field(default_factory=list)
    sources: list[dict] = field(default_factory=list)   # bronze relations, with freshness
    files: list[str] = field(default_factory=list)
    reconcile: list[dict] = field(default_factory=list)  # document-level checks (spec 3.6)
    coverage: list[dict] = field(default_factory=list)
    # what fields promise beyond what the pipeline does (required, renamed_from, canonical,
    # classification) and each entity's materialization: plan compares these, the models never
    # read them (resolve/project.py: contract_facts)
    contract: dict = field(default_factory=dict)
    ir_version: int = IR_VERSION
    # spec path text ("mapping[a->b].fields.x.transform[1]") -> Location; for later stages
    # (emit) that know where a problem is in spec terms but not in which file and line.
    locate: Callable[[str], Location] | None = field(default=None, repr=False, compare=False)

    def counted(self) -> list[str]:
        """The entities whose counts the quality mart records, each by its own `<entity>__quality`
        view: every entity with a rule, and each left side of a reconcile check (the check's row is
        counted on that side's entity)."""
        names = [n for n, e in self.entities.items() if e.rules]
        return names + sorted({c["entity"] for c in self.reconcile} - set(names))

    def relocate(self, error: BloomeryError) -> BloomeryError:
        """Give an error raised after compilation (emit) the file, line and column of its spec path."""
        loc = error.location
        if self.locate is not None and loc.path and not loc.file:
            found = self.locate(loc.path)
            error.location = Location(found.file, found.line, found.column, loc.path)
        return error


def materialization(entity: Data) -> str:
    """An entity spec's materialization: the declared one, else `incremental_by_partition` when it
    has a `partition_by`, else `full` (the one derivation: the IR and plan's spec facts use it)."""
    declared = entity.get("materialization")
    if declared:
        return declared
    return "incremental_by_partition" if entity.get("partition_by") else "full"
