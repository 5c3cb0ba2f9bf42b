"""bloomery's vocabulary: the names that the compiler, the emitter, `bloomery plan`, the report
and the macros all mean the same thing by, spelled once. The macros spell what they need of it in
one place, `bloomery.vocabulary()` (macros/sql/vocabulary.sql), which a unit test holds equal to
this module."""
from __future__ import annotations

# The ingestion metadata a loader writes into every bronze row: the delivery it came in, when it
# landed, and its identity stable across re-deliveries (docs/getting-started.md, "Land bronze").
METADATA = ("_load_id", "_ingested_at", "_source_row_id")

# Names a spec may not give a field or an `expression` rule: bloomery adds columns of these names
# itself (the flag columns, the ingestion metadata, a merged entity's `_source`), or the
# reference reserves them (`metric_time`, `has_quality_flags`).
RESERVED = frozenset({"metric_time", "_quality_flags", "_quality_ok", "_quality_repairs", *METADATA,
                      "_source", "has_quality_flags"})

# bloomery's own namespace: every column it adds inside a relation it generates (`_bloomery_route`,
# `_bloomery_rank`, `_bloomery_winner`, `_bloomery_raw`, `_bloomery_rule__<rule>`, ...) and every
# relation or alias it names (`_bloomery_compile`, `_bloomery_values`) starts with INTERNAL_PREFIX,
# and the expression placeholders carry PLACEHOLDER. No name a spec authors (entity, field, mapping
# column, rule, test, relationship) and no bronze column a mapping reads or lists may enter it, in
# any case: DuckDB renames a duplicate column instead of refusing it, so a bronze or spec column of
# an internal name would silently be read as the internal one (docs/design.md, "Reserved names").
# The ingestion metadata is not in it: bronze carries those columns and bloomery reads them.
INTERNAL_PREFIX = "_bloomery"
PLACEHOLDER = "__bloomery_"


def in_namespace(name: str) -> bool:
    """Whether `name` is bloomery's own (case-insensitively): it starts with INTERNAL_PREFIX or
    carries PLACEHOLDER anywhere."""
    folded = name.lower()
    return folded.startswith(INTERNAL_PREFIX) or PLACEHOLDER in folded


def is_reserved(name: str) -> bool:
    """Whether a field (or an expression rule) may not be called `name`: a RESERVED member name in
    any case, or bloomery's namespace."""
    return name.lower() in RESERVED or in_namespace(name)

# The value `unknown_member` rewrites an orphan's foreign key to, and the parent row it points at.
UNKNOWN_MEMBER = "__unknown__"

# When that foreign key is also a key column, the entity carries the value the source delivered
# beside the rewritten one, in a column of this prefix and the key column's name: two orphans of
# different parents are two rows, not one key (docs/quality-rules.md, "The delivered key").
DELIVERED_KEY = "_bloomery_delivered__"

# The quality mart: one snapshot of counts per run, per entity and rule; each entity's accounting
# row (the population and its routes) carries this in place of a rule name.
MART = "mart_data_quality"
ENTITY_ROW = "(entity)"

# The `_load_id` replay re-delivers a type 2 entity's admitted rejects to bronze under.
REPLAY_LOAD = "__replay__"

# The tag of the quality-threshold tests (an entity's quarantine rate and drift): they judge a
# build's outcome, not its correctness, so `bloomery plan`'s backfill steps leave them to the final
# `dbt build` (a spec change moves rates; a script under `set -e` must not stop on that). A hyphen,
# which no entity name holds, so no entity's tag can be it.
THRESHOLD_TAG = "bloomery-threshold"
