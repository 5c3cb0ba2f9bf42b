"""A pure-Python model of the pipeline for the property spec tree
(integration_tests/corpus/property/specs): where every bronze row must be after each load,
replay and spec change. It is the oracle of tests/integration/test_conservation_property.py.

It is written from the documents, not from the macros:
  - the product page (shared/seed/data-quality.md): extract -> transform -> dedupe -> rules ->
    route; NULL never fires a rule except not_null/coercible; the referential probe reads the
    parent's admitted rows only; replay contests each key in the dedupe order and marks a passing
    loser `(superseded)`;
  - dedupe's total order (docs/design.md): `_ingested_at` latest first, compared as the instant it
    casts to (two spellings of one instant tie), then the tie-break `_load_id`, then
    `_source_row_id`, all descending; a row with a NULL key part is its own group;
  - a merged entity (docs/quality-rules.md, "Merged entities"; the `merged` trees below): each row
    judged by its own mapping, identified by (bronze relation, `_source_row_id`); dedupe across
    the mappings with the relation name as the last tie-break; without dedupe, a key two
    relations claim stops the build (source_collision), and replay keeps a passing candidate
    whose key another relation publishes or claims quarantined, `(source_collision)` first;
  - the ledger contract (issue 19, docs/design.md "What a build judges"):
      * a delivery is identified by (bronze relation, `_source_row_id`, `_load_id`,
        `_ingested_at`), compared as stored text; `<entity>__ledger` records every judged delivery
        with its route: keep, quarantine (a held one too), or deduped with the source row it lost
        its key to (`winner_row_id`); `expired` is never reached here (the clock var is pinned
        before every generated timestamp);
      * an incremental build (`incremental_by_key`) judges the bronze deliveries whose identity
        the ledger does not hold (the batch), every delivery of their source rows, and every
        bronze row of a key any of those carries (so the winner of every key it reads is the one
        a full refresh picks, even when a source row is re-delivered under another key);
        nothing is inferred from a timestamp, so a late part of a judged load (same `_load_id`,
        older `_ingested_at`) and a retried load are judged like any other delivery, and two
        bronze rows with one identity (a load appended twice) are one delivery to the ledger;
      * a `full` entity judges all of bronze on every build, and so do a first build and
        `dbt build --full-refresh`, which rebuilds the entity; the reject table and the ledger
        (history) survive it, and a build that judged all of bronze replaces every verdict of
        the ledger (bronze never loses a row here);
      * candidates are transformed, deduped and judged against the parent's currently admitted
        rows (the parent builds first in the same run);
      * held: a candidate that survives dedupe and whose delivery is the one an UNRESOLVED reject
        row of its source row records stays in the reject table unchanged, whatever its verdict
        now; a quarantined row leaves the reject table only by replay, a re-delivery of its source
        row (a new delivery, judged fresh) or a newer delivery of its key (it then loses dedupe
        and its reject row is resolved); a full refresh, which restates history, is the one build
        that judges it afresh (HELD_THROUGH_FULL_REFRESH below);
      * the entity: every re-judged row (by key, or by source row when the key has a NULL part)
        is replaced by the kept winners (a row whose key has a NULL part is re-judged only when
        its own delivery is); the reject table: a diverted winner is upserted by
        `reject_id` (first_seen is the earliest `_ingested_at` among this build's judged
        deliveries of the source row that fail a quarantine rule, and a row already in the table
        keeps its value; last_evaluated_at is carried over); a reject row whose recorded delivery
        was re-judged, and whose source row is neither diverted nor held, is resolved (nothing
        else changes in it); the ledger forgets the re-judged deliveries, one by one, and (a
        type 1 entity, whose ledger is a view of its rows) the `keep` verdict of a row the
        entity's delete removed whose delivery bronze no longer holds;
      * replay changes the entity and the reject table, never the ledger.
  - a type 2 entity (docs/design.md, "Type 2 versions"; the product page, "Replaying onto a
    historical entity"): its deliveries of a key are ranked by dedupe's order (declared, or implied
    without `dedupe:`); the newest kept-able one (no quarantine rule diverts it, no unresolved
    reject row holds it) is the key's kept delivery, the newer ones take their own route, the
    older ones are `deduped` to it (`versioned`); its relation is a snapshot of each build's kept
    rows: a kept delivery that differs from the current version in the entity's columns,
    `_quality_flags` or `_source_row_id` makes a new version and closes the old one, an unchanged
    one changes nothing, and nothing else ever moves (no hard deletes; a full refresh rebuilds no
    snapshot), so a child's referential probe sees every key ever versioned; replay re-delivers
    each passing reject to bronze (`_load_id` REPLAY) and changes neither the entity nor the
    ledger.

Bronze cells are text or None, as a loader lands them. The transforms here cover exactly the
vocabulary the generator draws from (see `strategies` in the test), where the engine's cast and
Python agree.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal

ACCOUNTS = "prop__accounts"
ENTRIES = "prop__entries"
ACCOUNTS_B = "prop__accounts_b"      # the `merged` trees' second bronze relation of `account`
META = ["_load_id", "_ingested_at", "_source_row_id"]
COLUMNS = {ACCOUNTS: ["id", "tier", "score", "opened"] + META, ENTRIES: ["payload", "payer"] + META,
           ACCOUNTS_B: ["ref", "level", "points", "since"] + META}
UNKNOWN = "__unknown__"

# The two spec variants. `wide` is the base spec with the enum widened by one spelling and the
# code pattern relaxed from quarantine to flag: the two ways a spec fix frees quarantined rows.
WIDEN = {
    "mapping_accounts.yaml": ("{enum_map: [basic, basic, pro, pro, gold, premium, premium, premium]}",
                              "{enum_map: [basic, basic, pro, pro, gold, premium, premium, premium, legacy, basic]}"),
    "mapping_entries.yaml": ("{rule: pattern, regex: '^[A-Z]{2}[0-9]$', on_fail: quarantine}",
                             "{rule: pattern, regex: '^[A-Z]{2}[0-9]$', on_fail: flag}"),
}
TIERS = {"base": {"basic": "basic", "pro": "pro", "gold": "premium", "premium": "premium"}}
TIERS["wide"] = {**TIERS["base"], "legacy": "basic"}
QUARANTINE = {
    "account": {"tier_in_enum", "score_coercible", "score_range_min", "opened_on_coercible"},
    "entry": {"line_no_coercible", "code_pattern", "amount_coercible", "amount_range_min", "entry_payer_referential"},
}
FLAG_ONLY_IN = {"wide": {"code_pattern"}, "base": set()}

# The trees: the property tree as it is, and `fkkey`, where the child's key includes the foreign
# key its `unknown_member` rule rewrites (the product page's `order_item` shape): the entity then
# carries the delivered value in `_bloomery_delivered__account_id`, and that value identifies the
# row (docs/quality-rules.md, "The delivered key").
TREES = {
    "base": {},
    "fkkey": {
        "entity_model.yaml": ("    key: [entry_id, line_no]\n", "    key: [entry_id, line_no, account_id]\n"),
        "mapping_entries.yaml": ('  line_no: {from: "$.payload.line", transform: [to_int]}\nfields:\n'
                                 '  account_id: {from: "$.payload.account", transform: [trim]}\n',
                                 '  line_no: {from: "$.payload.line", transform: [to_int]}\n'
                                 '  account_id: {from: "$.payload.account", transform: [trim]}\nfields:\n'),
    },
}
KEYS = {"base": ["entry_id", "line_no"], "fkkey": ["entry_id", "line_no", "account_id"]}

# -- type 2 trees (issue 38): the parent `account` keeps history (`scd: type2`, a dbt snapshot of
# its kept rows; its key is one column, as a snapshot requires), with its dedupe (`scd2`) and
# without it (`scd2_plain`, where the compiler implies the delivery order, which is the same order
# here: `_ingested_at` as an instant, `_load_id`, `_source_row_id`). The child reads it as its
# parent, as in `base`. What a type 2 entity holds is modelled by `Entity.versions` below.
TREES["scd2"] = {"entity_model.yaml": ("    key: [account_id]\n", "    key: [account_id]\n    scd: type2\n")}
ACCOUNT_BLOCK = ("    key: [account_id]\n"
                 "    fields:\n"
                 "      account_id: {type: string}\n"
                 "      tier: {type: string}\n"
                 "      score: {type: int}\n"
                 "      opened_on: {type: date}\n"
                 "    dedupe: {keep: latest_by, field: _ingested_at, tie_break: [_load_id]}\n"
                 "    quarantine: {retention: 365d}\n\n  entry:\n")
TREES["scd2_plain"] = {"entity_model.yaml": (ACCOUNT_BLOCK, ACCOUNT_BLOCK.replace("\n", "\n    scd: type2\n", 1).replace(
    "    dedupe: {keep: latest_by, field: _ingested_at, tie_break: [_load_id]}\n", ""))}
KEYS["scd2"] = KEYS["scd2_plain"] = KEYS["base"]
TYPE2 = {"scd2": {"account"}, "scd2_plain": {"account"}}     # tree -> its type 2 entities
DELIVERED = "_bloomery_delivered__account_id"

# -- the merged trees (issue 38) -----------------------------------------------------------------
# `account` is a merged entity there: a second mapping from a second bronze relation, another
# system's accounts under its own column names (`ref`, `level`, `points`, `since`), with the same
# transforms and rules. The spec variant `wide` widens the first mapping's enum only, so a replay
# after it frees `legacy` accounts of `prop__accounts` and re-judges `prop__accounts_b`'s by their
# own, unwidened mapping (the product page: replay re-runs the mapping that produced each row).
# The two relations reuse `_source_row_id`s (a1, a2, ... in both): a delivery is identified by its
# bronze relation too. `merged`: the entity keeps its dedupe, whose order runs across both
# relations (the bronze relation name last, descending). `merged_nodedupe`: the entity declares no
# dedupe, so a key delivered by both relations stops the build (`account_source_collision`), and a
# replayed candidate whose key the other relation publishes (or claims in the same replay) stays
# quarantined with `(source_collision)` first in its failed rules (docs/quality-rules.md,
# "Merged entities"). The test's generator never lands a load that would stop a build (it asks
# `Warehouse.blocking_audits`), so every build passes and the replay contest is reached.
MAPPING_B = """\
# Bronze `prop__accounts_b` (the merged trees): another system's accounts, under its own column names.
mapping_version: 1
source: prop__accounts_b
target: account
key:
  account_id: {from: "$.ref", transform: [trim]}
fields:
  tier:
    from: "$.level"
    transform:
      - lower
      - {enum_map: [basic, basic, pro, pro, gold, premium, premium, premium]}
    quality:
      - {rule: in_enum, on_fail: quarantine}
  score:
    from: "$.points"
    transform: [to_int]
    quality:
      - {rule: range, min: 0, on_fail: quarantine}
      - {rule: range, max: 100, on_fail: flag}
  opened_on:
    from: "$.since"
    transform: [{parse_date: ISO8601}]
    quality:
      - {rule: not_null, on_fail: flag}
unmapped: ["$._load_id", "$._ingested_at", "$._source_row_id"]
"""
ACCOUNT_DEDUPE = ("      opened_on: {type: date}\n    dedupe: {keep: latest_by, field: _ingested_at, tie_break: [_load_id]}\n",
                  "      opened_on: {type: date}\n")
TREES["merged"] = {"mapping_accounts_b.yaml": (None, MAPPING_B)}          # (None, text): a new file
TREES["merged_nodedupe"] = {"mapping_accounts_b.yaml": (None, MAPPING_B), "entity_model.yaml": ACCOUNT_DEDUPE}
KEYS["merged"] = KEYS["merged_nodedupe"] = KEYS["base"]
# the mixes each merged tree is built with (the others take every mix): the merged entity
# incremental or `full`; without dedupe a `full` account re-judges its held rejects on every build,
# so a key the other relation publishes could never wait in the reject table for a replay there
TREE_MIXES = {"merged": ("incremental", "account_full"), "merged_nodedupe": ("incremental", "entry_full")}


def merged(tree: str) -> bool:
    return tree in ("merged", "merged_nodedupe")


def mixes(tree: str) -> tuple:
    return TREE_MIXES.get(tree, tuple(MIXES))


def tables(tree: str) -> tuple:
    """The bronze relations of a tree, parents first."""
    return (ACCOUNTS, ACCOUNTS_B, ENTRIES) if merged(tree) else (ACCOUNTS, ENTRIES)

# How the spec tree declares each entity's materialization (entity_model.yaml), and the mixes the
# test builds: both entities incremental, or one of them `full`.
MATERIALIZED = "materialization: incremental_by_key"
MIXES = {
    "incremental": {"account": "incremental_by_key", "entry": "incremental_by_key"},
    "entry_full": {"account": "incremental_by_key", "entry": "full"},
    "account_full": {"account": "full", "entry": "incremental_by_key"},
}


# Whether `dbt build --full-refresh` leaves a held delivery in the reject table too. Issue 19's
# contract and docs/design.md said so; since 7954871 a full refresh "restates history": it judges
# every delivery afresh, held ones included (macros/route/quality_split.sql `_held_rejects`), the
# rebuild `bloomery plan` names after a rule is relaxed. The model follows the macros' stated
# exception; a `full` entity and an incremental build still hold.
HELD_THROUGH_FULL_REFRESH = False


# -- transforms: text in, value / None (NULL) / FAIL (the coercion-failure marker) out ----------
FAIL = "<coercion failure>"


def trim(v):
    return None if v is None else v.strip(" ")          # SQL trim(): spaces only


def to_int(v):
    if v is None:
        return None
    return int(v) if re.fullmatch(r" *[+-]?[0-9]{1,12} *", v) else FAIL


def to_date(v):
    if v is None:
        return None
    try:
        return dt.date.fromisoformat(v) if re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", v) else FAIL
    except ValueError:
        return FAIL


def to_decimal_12_2(v):
    if v is None:
        return None
    return Decimal(v) if re.fullmatch(r"-?[0-9]{1,10}\.[0-9]{2}", v) else FAIL


def coerced(value, rule: str, fired: set):
    """A transform's result as the column holds it: a coercion failure fires the column's
    `coercible` rule and leaves NULL."""
    if value is FAIL:
        fired.add(rule)
        return None
    return value


def instant(ts: str) -> dt.datetime:
    """`_ingested_at` as the timestamp it casts to: the generator writes 'YYYY-MM-DD HH:MM:SS' and
    'YYYY-MM-DDTHH:MM:SS', two spellings of one instant (the text differs, the instant does not)."""
    return dt.datetime.fromisoformat(ts)


# -- one bronze delivery, judged ------------------------------------------------------------------
@dataclass(frozen=True)
class Delivery:
    table: str
    cells: tuple            # the non-metadata cells, in COLUMNS order
    load: str
    ts: str                 # `_ingested_at` as stored
    sid: str

    def row(self) -> tuple:
        return (*self.cells, self.load, self.ts, self.sid)

    def raw(self) -> dict:
        return dict(zip(COLUMNS[self.table], self.row()))

    def identity(self) -> tuple:
        """What the ledger records, compared as stored text: the bronze relation (a merged
        entity's relations may reuse a `_source_row_id`), `_source_row_id`, `_load_id`, `_ingested_at`."""
        return (self.table, self.sid, self.load, self.ts)

    def row_id(self) -> tuple:
        """The source row: (bronze relation, `_source_row_id`)."""
        return (self.table, self.sid)

    def order(self) -> tuple:
        """Dedupe order, best first when sorted descending: `_ingested_at` as an instant, the
        tie-break `_load_id`, then `_source_row_id` (both compared as text), then (a merged
        entity's last term) the bronze relation name."""
        return (instant(self.ts), self.load, self.sid, self.table)


@dataclass(frozen=True)
class Judged:
    delivery: Delivery
    key: tuple              # the transformed key (None for a NULL or failed part)
    values: tuple           # the entity's columns, in model order
    fired: tuple            # every rule that fired, sorted
    quarantined: bool       # fails a quarantine rule (of the variant it was judged with)

    def partition(self, dedupe: bool = True) -> tuple:
        """Dedupe partition: the key, and the source row when any key part is NULL. Without
        dedupe (`merged_nodedupe`'s account) only a source row's deliveries under one key
        contest: the latest is its re-delivery, the others lose to their own source row."""
        if not dedupe:
            return ("nodedupe",) + self.delivery.row_id() + self.key
        return self.key + (self.delivery.row_id() if None in self.key else (None, None))


def account_key(d: Delivery) -> tuple:
    return (trim(d.cells[0]),)


def entry_key(d: Delivery, tree: str = "base") -> tuple:
    """The key as delivered: under `fkkey` the account before any rewrite."""
    doc = json.loads(d.cells[0])
    line_no = to_int(doc.get("line"))
    key = (trim(doc.get("entry")), None if line_no is FAIL else line_no)
    return key + (trim(doc.get("account")),) if tree == "fkkey" else key


def judge_account(d: Delivery, variant: str, parents: frozenset) -> Judged:
    raw_id, raw_tier, raw_score, raw_opened = d.cells
    fired = set()
    account_id = trim(raw_id)
    # the spec variant widens the first mapping's enum only: a row is judged by its own mapping
    tiers = TIERS[variant if d.table == ACCOUNTS else "base"]
    tier = None if raw_tier is None else tiers.get(raw_tier.lower(), raw_tier.lower())
    if tier is not None and tier not in TIERS[variant].values():
        fired.add("tier_in_enum")
    score = coerced(to_int(raw_score), "score_coercible", fired)
    if score is not None:
        if score < 0:
            fired.add("score_range_min")
        if score > 100:
            fired.add("score_range_max")
    opened = coerced(to_date(raw_opened), "opened_on_coercible", fired)
    if opened is None:
        fired.add("opened_on_not_null")
    return _judged(d, "account", variant, (account_id,), (account_id, tier, score, opened), fired)


def judge_entry(d: Delivery, variant: str, parents: frozenset, tree: str = "base") -> Judged:
    payload, raw_payer = d.cells
    doc = json.loads(payload)
    fired = set()
    entry_id = trim(doc.get("entry"))
    line_no = coerced(to_int(doc.get("line")), "line_no_coercible", fired)
    account_id = trim(doc.get("account"))
    if account_id is not None and account_id not in parents:
        fired.add("entry_account_referential")     # unknown_member: kept, fk rewritten
        account_id = UNKNOWN
    payer_id = trim(raw_payer)
    if payer_id is not None and payer_id not in parents:
        fired.add("entry_payer_referential")
    code = trim(doc.get("code"))
    code = None if code is None else code.upper()
    if code is not None and not re.fullmatch(r"[A-Z]{2}[0-9]", code):
        fired.add("code_pattern")
    amount = coerced(to_decimal_12_2(doc.get("amount")), "amount_coercible", fired)
    if amount is not None:
        if amount < 0:
            fired.add("amount_range_min")
        if not amount < 10000:
            fired.add("amount_not_huge")
    # the key is the delivered one: the rewrite of a key column is published beside it, on kept rows
    key = (entry_id, line_no) + ((trim(doc.get("account")),) if tree == "fkkey" else ())
    return _judged(d, "entry", variant, key, (entry_id, line_no, account_id, payer_id, code, amount), fired)


def _judged(d, entity, variant, key, values, fired) -> Judged:
    quarantine = QUARANTINE[entity] - FLAG_ONLY_IN[variant]
    return Judged(d, key, values, tuple(sorted(fired)), bool(fired & quarantine))


# -- dedupe ---------------------------------------------------------------------------------------
def winners_of(judged: list[Judged], dedupe: bool = True) -> list[int]:
    """For each row, the index of its partition's winner: the best in dedupe order (of rows with
    one identity, which are one delivery, the first)."""
    best: dict[tuple, int] = {}
    for i, j in enumerate(judged):
        p = j.partition(dedupe)
        if p not in best or j.delivery.order() > judged[best[p]].delivery.order():
            best[p] = i
    return [best[j.partition(dedupe)] for j in judged]


def dedupe(judged: list[Judged], by_key: bool = True) -> tuple[list[Judged], list[Judged]]:
    """(winners, losers): one winner per partition, the best in dedupe order."""
    won = winners_of(judged, by_key)
    return ([j for i, j in enumerate(judged) if won[i] == i], [j for i, j in enumerate(judged) if won[i] != i])


# -- type 2 versions (the `scd2` trees) ------------------------------------------------------------
REPLAY = "__replay__"        # the `_load_id` replay re-delivers a type 2 entity's rows under


def versioned(judged: list[Judged], held) -> list[int]:
    """A type 2 entity's dedupe (docs/design.md, "Type 2 versions"): for each row, itself when it
    survives, else the row it lost to. Each partition's deliveries are ranked by dedupe's order;
    its current version is the newest delivery that is kept-able (no quarantine rule diverts it,
    `held(j)` is false: no unresolved reject row holds it), or the newest when none is. The
    current one and the deliveries newer than it survive (the newer ones are diverted: each takes
    its own route into the reject table, whose one row per source row records the newest of them,
    so an older diverted delivery of the same source row, or a copy, lost to that one); the older
    ones lose to the current one."""
    groups: dict[tuple, list[int]] = {}
    for i, j in enumerate(judged):
        groups.setdefault(j.partition(), []).append(i)
    out = list(range(len(judged)))
    for rows in groups.values():
        ranked = sorted(rows, key=lambda i: judged[i].delivery.order(), reverse=True)   # stable: a copy after its first
        current = next((i for i in ranked if not judged[i].quarantined and not held(judged[i])), ranked[0])
        newest: dict[str, int] = {}
        for n, i in enumerate(ranked):
            if n > ranked.index(current):
                out[i] = current
            elif i != current:
                out[i] = newest.setdefault(judged[i].delivery.sid, i)
    return out


def version(j: Judged) -> tuple:
    """What the snapshot compares (its `check_cols`): the entity's columns, `_quality_flags` and
    `_source_row_id`; `_load_id` and `_ingested_at` are carried, not compared."""
    return (j.values, j.fired, j.delivery.sid)


def reject_id(source: str, sid: str) -> str:
    return hashlib.sha256(f"S{len(source)}:{source}S{len(sid)}:{sid}".encode()).hexdigest()


# -- the warehouse, as the documents say it must evolve ---------------------------------------------
@dataclass
class Reject:
    judged: Judged          # the delivery it records and its judgement
    failed_rules: tuple
    first_seen: dt.datetime
    resolved: bool = False
    evaluated: bool = False


@dataclass(frozen=True)
class Verdict:
    """One row of `<entity>__ledger` (a held delivery is recorded as quarantine)."""
    source: str
    sid: str
    load: str
    ts: str
    route: str
    winner: str | None


@dataclass
class Entity:
    name: str
    source: str                 # the first (or only) bronze relation
    judge: callable
    key_of: callable
    parent: str | None = None
    materialization: str = "incremental_by_key"
    sources: tuple = ()         # every bronze relation (a merged entity has several)
    dedupe: bool = True
    built: bool = False
    kept: dict = field(default_factory=dict)       # (relation, sid) -> Judged (the admitted row)
    rejects: dict = field(default_factory=dict)    # (relation, sid) -> Reject
    ledger: list = field(default_factory=list)     # Verdict, one per judged bronze row
    scd2: bool = False                             # type 2: history in a snapshot of its kept rows
    versions: dict = field(default_factory=dict)   # type 2: partition -> [Judged], oldest first; the last is current
    routes: Counter = field(default_factory=Counter)   # every verdict given (the test's statistics)

    def __post_init__(self):
        self.sources = self.sources or (self.source,)


class Warehouse:
    def __init__(self, mix: str = "incremental", tree: str = "base"):
        self.tree = tree
        self.bronze: dict[str, list[Delivery]] = {t: [] for t in tables(tree)}
        self.trimmed: dict[str, list[Delivery]] = {t: [] for t in tables(tree)}   # rows of deleted loads
        self.variant = "base"
        self.account = Entity("account", ACCOUNTS, judge_account, account_key, materialization=MIXES[mix]["account"],
                              sources=(ACCOUNTS, ACCOUNTS_B) if merged(tree) else (ACCOUNTS,),
                              dedupe=tree != "merged_nodedupe",   # type 2 without dedupe still ranks a key's deliveries (versioned)
                              scd2="account" in TYPE2.get(tree, ()))
        self.entry = Entity("entry", ENTRIES, lambda d, v, p: judge_entry(d, v, p, tree), lambda d: entry_key(d, tree),
                            parent="account", materialization=MIXES[mix]["entry"])
        self.entities = [self.account, self.entry]   # the DAG order: parent first
        self.staged: dict[str, list] = {}             # the last build's [(Judged, route)] by entity

    def parents_of(self, e: Entity) -> frozenset:
        """The parent's admitted keys as the probe reads them: never NULL, never the Unknown member."""
        if e.parent is None:
            return frozenset()
        parent = getattr(self, e.parent)
        # a type 2 parent is its snapshot: every key ever versioned keeps a current version (no
        # version is closed without a successor), whatever bronze still holds
        rows = [h[-1] for h in parent.versions.values()] if parent.scd2 else parent.kept.values()
        return frozenset(j.values[0] for j in rows if j.values[0] is not None and j.values[0] != UNKNOWN)

    def bronze_of(self, e: Entity) -> list[Delivery]:
        return [d for s in e.sources for d in self.bronze[s]]

    # the user deletes a load from bronze (every relation): bronze is a window
    def delete_load(self, load: str):
        for table, rows in self.bronze.items():
            self.trimmed[table] += [d for d in rows if d.load == load]
            self.bronze[table] = [d for d in rows if d.load != load]

    # a `dbt build` (or `dbt build --full-refresh`)
    def build(self, full_refresh: bool = False):
        for e in self.entities:
            self._build(e, full_refresh)

    def batch(self, e: Entity, full_refresh: bool = False) -> list[Delivery]:
        """The deliveries a build reads: all of bronze, or (incremental) the ones the ledger does
        not hold with every row of a source row or key they touch."""
        bronze = self.bronze_of(e)
        if e.materialization == "full" or full_refresh or not e.built:
            return list(bronze)
        recorded = {(v.source, v.sid, v.load, v.ts) for v in e.ledger}
        # an identity bronze holds twice in an open load (one whose bronze rows the ledger does not
        # count one for one: a load appended twice) is judged again, every copy (docs/design.md,
        # "A delivery's content"), so the ledger then holds one verdict per bronze row of it
        in_bronze = Counter((d.table, d.load) for d in bronze)
        in_ledger = Counter((v.source, v.load) for v in e.ledger)
        open_loads = {load for load, n in in_bronze.items() if in_ledger[load] != n}
        twice = {i for i, n in Counter(d.identity() for d in bronze if (d.table, d.load) in open_loads).items() if n > 1}
        rows = [d for d in bronze if d.identity() not in recorded or d.identity() in twice]
        # a source row brings every delivery of it, and each of those every row of its key, so
        # the winner of every key read is the one a full refresh picks (a source row keeps its
        # key in generated data; a regression re-delivers one under another key). A source row
        # reached only through a key may have deliveries under other keys: those are not read.
        # Without dedupe a row is its own group: no key brings another source row's deliveries.
        sids = {d.row_id() for d in rows}
        keys = {k for k in (e.key_of(d) for d in bronze if d.row_id() in sids) if None not in k} if e.dedupe else set()
        return [d for d in bronze if d.row_id() in sids or e.key_of(d) in keys]

    def _build(self, e: Entity, full_refresh: bool):
        everything = e.materialization == "full" or full_refresh or not e.built
        parents = self.parents_of(e)
        judged = [e.judge(d, self.variant, parents) for d in self.batch(e, full_refresh)]

        def held(j: Judged) -> bool:
            r = e.rejects.get(j.delivery.row_id()) if HELD_THROUGH_FULL_REFRESH or not full_refresh else None
            return r is not None and not r.resolved and r.judged.delivery.identity() == j.delivery.identity()
        won = versioned(judged, held) if e.scd2 else winners_of(judged, e.dedupe)
        routes = []
        for i, j in enumerate(judged):
            if won[i] != i:
                routes.append("deduped")
            elif held(j):
                routes.append("held")
                e.routes["held, though it passes now"] += not j.quarantined
            else:
                routes.append("quarantine" if j.quarantined else "keep")
        e.routes.update(routes)
        self.staged[e.name] = list(zip(judged, routes))

        # the reject table: a diverted winner upserted by reject_id; first_seen is the earliest
        # judged delivery of its source row that fails a quarantine rule, winner or not (a clean
        # delivery is not when the problem started), and a row already in the table keeps its own
        first_seen = {}
        for j in judged:
            if j.quarantined:
                s, t = j.delivery.row_id(), instant(j.delivery.ts)
                first_seen[s] = min(first_seen.get(s, t), t)
        for j, route in zip(judged, routes):
            if route == "quarantine":
                old = e.rejects.get(j.delivery.row_id())
                e.rejects[j.delivery.row_id()] = Reject(j, j.fired, old.first_seen if old else first_seen[j.delivery.row_id()],
                                                        resolved=False, evaluated=old.evaluated if old else False)
        judged_ids = {j.delivery.identity() for j in judged}
        passed = {j.delivery.identity() for j, route in zip(judged, routes) if route not in ("quarantine", "held")}
        diverted = {j.delivery.row_id() for j, route in zip(judged, routes) if route in ("quarantine", "held")}
        for rid, r in e.rejects.items():
            if not r.resolved and r.judged.delivery.identity() in passed and rid not in diverted:
                r.resolved = True

        # the entity: every re-judged row (by key, or by source row when a key part is NULL;
        # without dedupe by source row) replaced by the kept winners
        before = dict(e.kept)
        if everything:
            e.kept = {}
        elif e.dedupe:
            keys = {j.key for j in judged}
            e.kept = {s: k for s, k in e.kept.items()
                      if not (k.key in keys if None not in k.key else k.delivery.identity() in judged_ids)}
        else:
            rids = {j.delivery.row_id() for j in judged}
            e.kept = {s: k for s, k in e.kept.items() if s not in rids}
        # a kept row the delete removed whose delivery this build did not judge (bronze no longer
        # holds it: its load was deleted, then its key or source row came again) is no longer a
        # kept delivery: a type 1 entity's ledger is a view of its rows (stop 48), so its `keep`
        # verdict leaves with the row, as a full refresh would forget it
        unkept = {k.delivery.identity() for s, k in before.items() if s not in e.kept} - judged_ids
        for j, route in zip(judged, routes):
            if route == "keep":
                e.kept[j.delivery.row_id()] = j
        if e.scd2:
            # the snapshot of this build's kept rows: a key's kept delivery that differs from its
            # current version in the compared columns is a new version (the old one is closed), an
            # unchanged one is no change; nothing else moves (no hard deletes, and a full refresh
            # does not rebuild a snapshot)
            for j, route in zip(judged, routes):
                history = e.versions.setdefault(j.partition(), [])
                if route == "keep" and (not history or version(history[-1]) != version(j)):
                    history.append(j)
            e.versions = {p: h for p, h in e.versions.items() if h}

        # the ledger: the re-judged deliveries forgotten, this build's verdicts recorded (the
        # winner of a deduped row is its source row id; without dedupe, its own)
        verdicts = [Verdict(*j.delivery.identity(), "quarantine" if route == "held" else route,
                            judged[won[i]].delivery.sid if route == "deduped" else None)
                    for i, (j, route) in enumerate(zip(judged, routes))]
        # (a build that judged all of bronze replaces the whole ledger but the diverted deliveries
        # bronze no longer holds: their reject rows stay, as history, and are still accounted for;
        # of a type 2 entity the kept ones too: the snapshot keeps their versions current)
        e.ledger = [v for v in e.ledger if (v.source, v.sid, v.load, v.ts) not in judged_ids
                    and (not everything or v.route == "quarantine" or (e.scd2 and v.route == "keep"))
                    and not (not e.scd2 and v.route == "keep" and (v.source, v.sid, v.load, v.ts) in unkept)] + verdicts
        e.built = True

    def blocking_audits(self) -> list[tuple]:
        """What the last build's blocking audits of a merged entity without dedupe find (the
        generator of `merged_nodedupe` lands no load that trips one): `account_source_collision`,
        a key delivered by two bronze relations among this build's deliveries that survive
        dedupe (kept or diverted) and the rows the entity published and this build did not
        re-judge; `account_key_unique`, a key the entity publishes twice (NULL keys group)."""
        found = []
        e = self.account
        if e.dedupe:
            return found
        staged = self.staged.get(e.name, [])
        rejudged = {j.delivery.row_id() for j, _ in staged}
        claims: dict[tuple, set] = {}
        for j, route in staged:
            if route != "deduped" and None not in j.key:
                claims.setdefault(j.key, set()).add(j.delivery.table)
        for rid, k in e.kept.items():
            if rid not in rejudged and None not in k.key:
                claims.setdefault(k.key, set()).add(k.delivery.table)
        found += [("account_source_collision", k) for k, s in claims.items() if len(s) > 1]
        found += [("account_key_unique", k) for k, n in Counter(k.key for k in e.kept.values()).items() if n > 1]
        return found

    # `dbt run-operation bloomery.replay --args '{entity: ...}'`
    def replay(self, name: str) -> list[str]:
        """Returns the source rows a type 2 replay re-delivers to bronze (none otherwise)."""
        e = getattr(self, name)
        parents = self.parents_of(e)
        if e.scd2:
            return self._redeliver(e, parents)
        open_rejects = [r for r in e.rejects.values() if not r.resolved]
        candidates = [e.judge(r.judged.delivery, self.variant, parents) for r in open_rejects]
        keys = {c.key for c in candidates}
        incumbents = [j for j in e.kept.values() if None not in j.key and j.key in keys] if e.dedupe else []
        contest: dict[tuple, Judged] = {}
        for j in candidates + incumbents:
            p = j.partition() if e.dedupe else j.delivery.row_id()
            if p not in contest or j.delivery.order() > contest[p].delivery.order():
                contest[p] = j
        # a merged entity without dedupe: nothing decides between two relations' rows of a key, so
        # a passing candidate whose key another relation publishes, or another relation's passing
        # candidate claims, stays quarantined
        collide = len(e.sources) > 1 and not e.dedupe
        published = {(k.key, k.delivery.table) for k in e.kept.values() if None not in k.key}
        claimed = {(c.key, c.delivery.table) for c in candidates if not c.quarantined and None not in c.key}
        admitted = []
        for c, r in zip(candidates, open_rejects):
            r.evaluated = True
            other = [s for s in e.sources if s != c.delivery.table]
            if c.quarantined:
                r.failed_rules = c.fired
            elif collide and None not in c.key and any((c.key, s) in published | claimed for s in other):
                r.failed_rules = ("(source_collision)",) + c.fired
                e.routes["replay: (source_collision)"] += 1
            elif contest[c.partition() if e.dedupe else c.delivery.row_id()] is c:
                r.resolved = True
                admitted.append(c)
            else:
                r.resolved = True
                r.failed_rules = ("(superseded)",)
                e.routes["replay: (superseded)"] += 1
        rids = {a.delivery.row_id() for a in admitted}
        akeys = {a.key for a in admitted} if e.dedupe else set()
        e.kept = {s: j for s, j in e.kept.items() if s not in rids and not (None not in j.key and j.key in akeys)}
        for a in admitted:
            e.kept[a.delivery.row_id()] = a
        return []

    def _redeliver(self, e: Entity, parents: frozenset) -> list[str]:
        """Replay of a type 2 entity (the product page, "Replaying onto a historical entity"):
        each unresolved reject that passes now is written back to bronze as a new delivery (its
        cells, its `_source_row_id`, `_load_id` REPLAY, the replay's time), unless bronze already
        holds a REPLAY delivery of that source row; one that still fails is re-stamped with what it
        fires now. The entity and the ledger do not move; the next build judges the re-delivery."""
        replayed = {d.sid for d in self.bronze[e.source] if d.load == REPLAY}
        out = []
        for (_, sid), r in e.rejects.items():
            if r.resolved:
                continue
            c = e.judge(r.judged.delivery, self.variant, parents)
            if c.quarantined:
                r.evaluated, r.failed_rules = True, c.fired
            elif sid not in replayed:
                out.append(sid)
        return sorted(out)

    def pending(self, e: Entity) -> Counter:
        """The re-deliveries of a type 2 replay that no build has judged yet: in bronze, nowhere
        else until the next build (the product page: "admitted by the next dbt build")."""
        judged = {(v.source, v.sid, v.load, v.ts) for v in e.ledger}
        return Counter(d.identity() for d in self.bronze[e.source] if d.load == REPLAY and d.identity() not in judged)

    def land_replayed(self, e: Entity, at: dict[str, str]):
        """The re-deliveries a type 2 replay wrote to bronze, at the `_ingested_at` it gave them."""
        for sid, ts in at.items():
            self.bronze[e.source].append(Delivery(e.source, e.rejects[(e.source, sid)].judged.delivery.cells, REPLAY, ts, sid))

    # -- what the tables must hold --------------------------------------------------------------
    def places(self, e: Entity) -> Counter:
        """Every bronze row -> 'entity' | 'reject' | 'deduped', as a multiset of (identity, place):
        a row the entity holds, a row an unresolved reject row records, or else a row that lost
        its key (of two rows with one identity, the second is the first's loser)."""
        out = Counter()
        taken = set()
        pending = self.pending(e)
        for d in self.bronze_of(e):
            if d.identity() in pending:
                continue
            k = e.kept.get(d.row_id())
            r = e.rejects.get(d.row_id())
            if d.identity() in taken:
                place = "deduped"
            elif k is not None and k.delivery == d:
                place = "entity"
            elif r is not None and not r.resolved and r.judged.delivery == d:
                place = "reject"
            else:
                place = "deduped"
            if place != "deduped":
                taken.add(d.identity())
            out[(*d.identity(), place)] += 1
        return out

    def version_losers(self, e: Entity, trimmed: set, placed: Counter) -> Counter:
        """A type 2 entity's dedupe losers, from bronze and the dedupe order alone: a diverted
        delivery newer than the current version is in the reject table and the current one in the
        entity, so "lost its key" is every bronze row that is not placed (`placed`: in the entity
        or unresolved in the reject table) but for its partition's newest delivery (in bronze and
        the deliveries of deleted loads the warehouse still holds, `trimmed`), which must be."""
        both = [e.judge(d, self.variant, frozenset()) for d in self.bronze[e.source]] + [
            e.judge(d, self.variant, frozenset()) for d in self.trimmed[e.source] if d.identity() in trimmed]
        newest = {both[w].delivery.identity() for w in winners_of(both)}
        rows = Counter(d.identity() for d in self.bronze[e.source])
        return Counter({i: n - placed[i] - (i in newest and not placed[i]) for i, n in rows.items()
                        if n - placed[i] - (i in newest and not placed[i]) > 0})

    def dedupe_losers(self, e: Entity, trimmed: set = frozenset(), placed: set = frozenset()) -> Counter:
        """Bronze rows that lose dedupe: computed from the bronze rows and the dedupe order alone,
        whatever the runs did. Bronze is a window: a delivery of a deleted load that the warehouse
        still holds (`trimmed`: identities in the entity or unresolved in the reject table) keeps
        its verdict, so a bronze row it beat and that is not itself `placed` (in the entity or
        unresolved in the reject table; a `full` entity, or a full refresh, judges bronze alone
        and may admit it) lost its key to it."""
        bronze = [e.judge(d, self.variant, frozenset()) for d in self.bronze_of(e)]
        gone = [e.judge(d, self.variant, frozenset()) for s in e.sources for d in self.trimmed[s] if d.identity() in trimmed]
        losers = Counter(j.delivery.identity() for j in dedupe(bronze, e.dedupe)[1])
        held = Counter(d.identity() for d in self.bronze_of(e))
        beaten = Counter(i for i in (j.delivery.identity() for j in dedupe(bronze + gone, e.dedupe)[1])
                         if i in held and i not in placed)
        return losers | beaten
