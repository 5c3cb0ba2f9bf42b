"""A pure-Python model of the pipeline for the property spec tree
(integration_tests/corpus/property/specs): where every bronze row must be after each load,
replay and spec change. It is the oracle of tests/integration/test_conservation_property.py.

It is written from the documents, not from the macros:
  - the product page (shared/seed/data-quality.md): extract -> transform -> dedupe -> rules ->
    route; dedupe's total order; NULL never fires a rule except not_null/coercible; the
    referential probe reads the parent's admitted rows only; replay contests each key in the
    dedupe order and marks a passing loser `(superseded)`; first_seen never moves;
  - the incremental contract (spec reference 6.3/6.4 and the models' own documentation): a run
    judges the bronze rows at/after the entity's newest `_ingested_at`, from a load the entity
    and its reject table have not seen, or judged by a previous run whose entity did not commit
    (never here: every build of this test completes), plus every bronze row of a key (or of a
    source row) that batch touches;
    the entity replaces every row the batch re-judged; a reject row is upserted by reject_id
    (first_seen kept) and resolved once its source row is re-judged and not diverted again.

Bronze cells are text or None, as a loader lands them. The transforms here cover exactly the
vocabulary the generator draws from (see `strategies` in the test), where the engine's cast and
Python agree.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from dataclasses import dataclass, field
from decimal import Decimal

ACCOUNTS = "prop__accounts"
ENTRIES = "prop__entries"
META = ["_load_id", "_ingested_at", "_source_row_id"]
COLUMNS = {ACCOUNTS: ["id", "tier", "score", "opened"] + META, ENTRIES: ["payload", "payer"] + META}
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


# -- one bronze delivery, judged ------------------------------------------------------------------
@dataclass(frozen=True)
class Delivery:
    table: str
    cells: tuple            # the non-metadata cells, in COLUMNS order
    load: str
    ts: str                 # '%Y-%m-%d %H:%M:%S': text order is time order
    sid: str

    def row(self) -> tuple:
        return (*self.cells, self.load, self.ts, self.sid)

    def raw(self) -> dict:
        return dict(zip(COLUMNS[self.table], self.row()))

    def order(self) -> tuple:
        """Dedupe order, best first when sorted descending: _ingested_at, tie-break _load_id,
        then _source_row_id (metadata compared as stored: text)."""
        return (self.ts, self.load, self.sid)


@dataclass(frozen=True)
class Judged:
    delivery: Delivery
    key: tuple              # the transformed key (None for a NULL or failed part)
    values: tuple           # the entity's columns, in model order
    fired: tuple            # every rule that fired, sorted
    quarantined: bool

    def partition(self) -> tuple:
        """Dedupe partition: the key, and the source row when any key part is NULL."""
        return self.key + ((self.delivery.sid,) if None in self.key else (None,))


def judge_account(d: Delivery, variant: str, parents: frozenset) -> Judged:
    raw_id, raw_tier, raw_score, raw_opened = d.cells
    fired = set()
    account_id = trim(raw_id)
    tier = None if raw_tier is None else TIERS[variant].get(raw_tier.lower(), raw_tier.lower())
    if tier is not None and tier not in TIERS[variant].values():
        fired.add("tier_in_enum")
    score = to_int(raw_score)
    if score is FAIL:
        fired.add("score_coercible")
        score = None
    elif score is not None:
        if score < 0:
            fired.add("score_range_min")
        if score > 100:
            fired.add("score_range_max")
    opened = to_date(raw_opened)
    if opened is FAIL:
        fired.add("opened_on_coercible")
        opened = None
    if opened is None:
        fired.add("opened_on_not_null")
    return _judged(d, "account", variant, (account_id,), (account_id, tier, score, opened), fired)


def judge_entry(d: Delivery, variant: str, parents: frozenset) -> Judged:
    payload, raw_payer = d.cells
    doc = json.loads(payload)
    fired = set()
    entry_id = trim(doc.get("entry"))
    line_no = to_int(doc.get("line"))
    if line_no is FAIL:
        fired.add("line_no_coercible")
        line_no = None
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
    amount = to_decimal_12_2(doc.get("amount"))
    if amount is FAIL:
        fired.add("amount_coercible")
        amount = None
    elif amount is not None:
        if amount < 0:
            fired.add("amount_range_min")
        if not amount < 10000:
            fired.add("amount_not_huge")
    return _judged(d, "entry", variant, (entry_id, line_no), (entry_id, line_no, account_id, payer_id, code, amount), fired)


def _judged(d, entity, variant, key, values, fired) -> Judged:
    quarantine = QUARANTINE[entity] - FLAG_ONLY_IN[variant]
    return Judged(d, key, values, tuple(sorted(fired)), bool(fired & quarantine))


# -- dedupe, computed from bronze alone -------------------------------------------------------------
def dedupe(judged: list[Judged]) -> tuple[list[Judged], list[Judged]]:
    """(winners, losers): one winner per partition, the best in dedupe order."""
    best: dict[tuple, Judged] = {}
    for j in judged:
        p = j.partition()
        if p not in best or j.delivery.order() > best[p].delivery.order():
            best[p] = j
    winners = list(best.values())
    won = {id(w) for w in winners}
    return winners, [j for j in judged if id(j) not in won]


def reject_id(source: str, sid: str) -> str:
    return hashlib.sha256(f"S{len(source)}:{source}S{len(sid)}:{sid}".encode()).hexdigest()


# -- the warehouse, as the documents say it must evolve ---------------------------------------------
@dataclass
class Reject:
    judged: Judged          # the delivery it holds and its judgement
    failed_rules: tuple
    first_seen: str
    resolved: bool = False
    evaluated: bool = False


@dataclass
class Entity:
    name: str
    source: str
    judge: callable
    parent: str | None = None
    built: bool = False
    kept: dict = field(default_factory=dict)       # sid -> Judged (the admitted row)
    rejects: dict = field(default_factory=dict)    # sid -> Reject


class Warehouse:
    def __init__(self):
        self.bronze: dict[str, list[Delivery]] = {ACCOUNTS: [], ENTRIES: []}
        self.variant = "base"
        self.account = Entity("account", ACCOUNTS, judge_account)
        self.entry = Entity("entry", ENTRIES, judge_entry, parent="account")
        self.entities = [self.account, self.entry]   # the DAG order: parent first

    def parents_of(self, e: Entity) -> frozenset:
        """The parent's admitted keys as the probe reads them: never NULL, never the Unknown member."""
        if e.parent is None:
            return frozenset()
        parent = getattr(self, e.parent)
        return frozenset(j.values[0] for j in parent.kept.values() if j.values[0] is not None and j.values[0] != UNKNOWN)

    # a `dbt build` (or `dbt build --full-refresh`)
    def build(self, full_refresh: bool = False):
        for e in self.entities:
            self._build(e, full_refresh)

    def _build(self, e: Entity, full_refresh: bool):
        parents = self.parents_of(e)
        rows = [e.judge(d, self.variant, parents) for d in self.bronze[e.source]]
        if not e.built or full_refresh or not e.kept:
            batch = rows            # no state (first run, full refresh, or an entity with no timestamps yet)
        else:
            watermark = max(j.delivery.ts for j in e.kept.values())
            seen = {j.delivery.load for j in e.kept.values()} | {r.judged.delivery.load for r in e.rejects.values()}
            batch = [j for j in rows if j.delivery.ts >= watermark or j.delivery.load not in seen]
        touched = {j.key for j in batch if None not in j.key}
        sources = {j.delivery.sid for j in batch}
        in_batch = {id(j) for j in batch}
        candidates = [j for j in rows if id(j) in in_batch or j.key in touched or j.delivery.sid in sources]
        winners, _ = dedupe(candidates)

        # the reject table: upsert by reject_id, first_seen and last_evaluated_at carried over
        # first_seen: the earliest judged delivery of the source row that fails a quarantine rule,
        # winner or not (a clean delivery is not when the problem started)
        first_seen = {}
        for j in candidates:
            if j.quarantined:
                s = j.delivery.sid
                first_seen[s] = min(first_seen.get(s, j.delivery.ts), j.delivery.ts)
        diverted = {w.delivery.sid for w in winners if w.quarantined}
        for w in winners:
            if w.quarantined:
                old = e.rejects.get(w.delivery.sid)
                e.rejects[w.delivery.sid] = Reject(w, w.fired, old.first_seen if old else first_seen[w.delivery.sid],
                                                   resolved=False, evaluated=old.evaluated if old else False)
        judged_sids = {j.delivery.sid for j in candidates}
        for sid, r in e.rejects.items():
            if not r.resolved and sid in judged_sids and sid not in diverted:
                r.resolved = True

        # the entity: every re-judged row (by source row or by key) replaced by the kept winners
        if not e.built or full_refresh:
            e.kept = {}
        else:
            keys = {j.key for j in candidates}
            e.kept = {s: j for s, j in e.kept.items() if s not in judged_sids and not (None not in j.key and j.key in keys)}
        for w in winners:
            if not w.quarantined:
                e.kept[w.delivery.sid] = w
        e.built = True

    # `dbt run-operation bloomery.replay --args '{entity: ...}'`
    def replay(self, name: str):
        e = getattr(self, name)
        parents = self.parents_of(e)
        open_rejects = [r for r in e.rejects.values() if not r.resolved]
        candidates = [e.judge(r.judged.delivery, self.variant, parents) for r in open_rejects]
        keys = {c.key for c in candidates}
        incumbents = [j for j in e.kept.values() if None not in j.key and j.key in keys]
        contest: dict[tuple, tuple] = {}
        for j in candidates + incumbents:
            p = j.partition()
            if p not in contest or j.delivery.order() > contest[p].delivery.order():
                contest[p] = j
        admitted = []
        for c, r in zip(candidates, open_rejects):
            r.evaluated = True
            if c.quarantined:
                r.failed_rules = c.fired
            elif contest[c.partition()] is c:
                r.resolved = True
                admitted.append(c)
            else:
                r.resolved = True
                r.failed_rules = ("(superseded)",)
        sids = {a.delivery.sid for a in admitted}
        akeys = {a.key for a in admitted}
        e.kept = {s: j for s, j in e.kept.items() if s not in sids and not (None not in j.key and j.key in akeys)}
        for a in admitted:
            e.kept[a.delivery.sid] = a

    # -- what the tables must hold --------------------------------------------------------------
    def places(self, e: Entity) -> dict[tuple, str]:
        """Every bronze delivery -> 'entity' | 'reject' | 'deduped'."""
        out = {}
        for d in self.bronze[e.source]:
            k = e.kept.get(d.sid)
            r = e.rejects.get(d.sid)
            if k is not None and k.delivery == d:
                out[(d.sid, d.load)] = "entity"
            elif r is not None and not r.resolved and r.judged.delivery == d:
                out[(d.sid, d.load)] = "reject"
            else:
                out[(d.sid, d.load)] = "deduped"
        return out

    def dedupe_losers(self, e: Entity) -> set:
        """Rows that lose dedupe across the whole of bronze: computed from the bronze rows and the
        dedupe order alone, whatever the runs did."""
        judged = [e.judge(d, self.variant, frozenset()) for d in self.bronze[e.source]]
        return {(j.delivery.sid, j.delivery.load) for j in dedupe(judged)[1]}
