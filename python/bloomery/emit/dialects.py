"""What each dbt target can host, as far as the compiler needs to know before it writes anything.

Python writes no dialect SQL (the package's `<engine>__` macros do); what it needs is whether a
spec can run on a target at all, so a spec that cannot is refused at compile time with a located
`UnsupportedByTarget` rather than failing in the warehouse. One entry per dialect; a dialect
inherits every capability it does not state from its parent (the closest engine), the same way
dbt dispatch falls back from `redshift__` to `postgres__` and from `databricks__` to `spark__`.

    bloomery compile --specs specs --out models/bloomery --target-dialect snowflake
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import BloomeryErrors, EmitError, Location, UnsupportedByTarget


@dataclass(frozen=True)
class Dialect:
    name: str
    parent: str | None = None
    # capability -> value; a falsy value means the target lacks it
    own: dict = field(default_factory=dict)
    sqlglot: str | None = None   # sqlglot's name for the dialect, for the render tests


# The capabilities the compiler checks:
#   null_on_failure_cast  how the engine yields NULL for a value that does not cast (the coercion
#                         marker of every quality entity, and the ingestion-metadata audit of every
#                         dedupe / quarantine entity); None: no such cast
#   nfc_normalize         how `normalize` rules test NFC; None: no Unicode normalization
#   snapshots             dbt snapshots (type 2 entities) run there
#   flags                 shape of `_quality_flags` / `failed_rules`: an array type or a comma string
#   identifier_quote      the character dbt's adapter.quote wraps a name in, for the few places
#                         where dbt reads a name from YAML without quoting it (snapshot keys)
#   string_type           the engine's text type, for the one expression dbt reads from YAML
#                         (a type 2 snapshot's version key); the macros' `type_names` spell it too
#   rewrites              how rows already written change: "dml" (DELETE / UPDATE / MERGE) or
#                         "rebuild" (rewrites through insert overwrite)
DIALECTS: dict[str, Dialect] = {d.name: d for d in [
    # ISO SQL (the package's default__ macros): NORMALIZE, but no NULL-on-failure cast
    Dialect("default", None, {"null_on_failure_cast": None, "nfc_normalize": "NORMALIZE", "snapshots": True,
                              "flags": "array", "rewrites": "dml", "identifier_quote": '"',
                              "string_type": "varchar"}),
    Dialect("duckdb", "default", {"null_on_failure_cast": "TRY_CAST", "nfc_normalize": "NFC_NORMALIZE"}, sqlglot="duckdb"),
    Dialect("postgres", "default", {"null_on_failure_cast": "pg_input_is_valid guard", "string_type": "text"}, sqlglot="postgres"),
    Dialect("redshift", "postgres", {"null_on_failure_cast": "TRY_CAST", "nfc_normalize": None, "flags": "comma string",
                                         "string_type": "varchar(65535)"},
            sqlglot="redshift"),
    Dialect("trino", "default", {"null_on_failure_cast": "TRY_CAST"}, sqlglot="trino"),
    Dialect("snowflake", "default", {"null_on_failure_cast": "TRY_CAST over VARCHAR", "nfc_normalize": None},
            sqlglot="snowflake"),
    Dialect("bigquery", "default", {"null_on_failure_cast": "SAFE_CAST", "identifier_quote": "`", "string_type": "string"}, sqlglot="bigquery"),
    # open-source Spark on parquet: no DML, no snapshot (dbt-spark snapshots need Delta)
    Dialect("spark", "default", {"null_on_failure_cast": "TRY_CAST", "nfc_normalize": "ICU4J through reflect()", "snapshots": False, "rewrites": "rebuild",
                                 "identifier_quote": "`", "string_type": "string"},
            sqlglot="spark"),
    # Delta tables: DML and snapshots; reflect() is not open to SQL warehouses
    Dialect("databricks", "spark", {"nfc_normalize": None, "snapshots": True, "rewrites": "dml"},
            sqlglot="databricks"),
]}


def capabilities(name: str, table: dict[str, Dialect] | None = None) -> dict:
    """Every capability of `name`, inherited ones included."""
    table = DIALECTS if table is None else table
    if name not in table:
        raise EmitError(f"unknown target dialect {name!r}", Location(),
                        "one of: " + ", ".join(sorted(n for n in table if n != "default")))
    chain = []
    current: str | None = name
    while current is not None:
        chain.append(table[current])
        current = table[current].parent
    caps: dict = {}
    for d in reversed(chain):
        caps.update(d.own)
    return caps


def check_target(project, name: str, table: dict[str, Dialect] | None = None) -> dict:
    """Refuse, all at once, what `project` asks of a target dialect that the dialect cannot do.
    Returns the dialect's capabilities when everything fits."""
    caps = capabilities(name, table)
    errors: list[UnsupportedByTarget] = []
    for ename, entity in sorted(project.entities.items()):
        base = f"entities.{ename}"
        needs_cast = [why for why, on in (("quality rules (the coercion marker)", entity.quality),
                                          ("dedupe (the ingestion-metadata audit)", entity.dedupe),
                                          ("quarantine (the ingestion-metadata audit)", entity.quarantine))
                      if on]
        if needs_cast and not caps["null_on_failure_cast"]:
            errors.append(UnsupportedByTarget(
                f"entity `{ename}` needs a NULL-on-failure cast for {', '.join(needs_cast)}, "
                f"and the {name} dialect has none",
                Location(path=base), "target an engine with TRY_CAST / SAFE_CAST, or drop the quality opt-in"))
        for rule in entity.rules:
            if rule.kind == "normalize" and not caps["nfc_normalize"]:
                errors.append(UnsupportedByTarget(
                    f"rule `{rule.name}` of `{ename}` tests Unicode normalization, which the {name} dialect lacks",
                    Location(path=rule.path), "drop the normalize rule for this target"))
        if entity.scd == "type2" and not caps["snapshots"]:
            errors.append(UnsupportedByTarget(
                f"entity `{ename}` keeps history (scd: type2) in a dbt snapshot, which the {name} dialect "
                "cannot run", Location(path=base + ".scd"), "keep history on an engine with snapshots"))
    if errors:
        raise BloomeryErrors(errors)
    return caps
