"""Orphans of every kind, judged under each on_missing. `orphan` says whether the probe fires."""
ACCOUNTS_COLUMNS = ["id", "name", "_load_id", "_ingested_at", "_source_row_id"]
ACCOUNTS = [
    ("A1", "Acme", "l1", "2024-01-01 00:00:00", "a-1"),
    ("A2", None, "l1", "2024-01-01 00:00:00", "a-2"),          # quarantined: children of A2 are orphans
    ("A3", "Globex", "l1", "2024-01-01 00:00:00", "a-3"),
]
PAYMENTS_COLUMNS = ["id", "account", "amount", "_load_id", "_ingested_at", "_source_row_id"]
PAYMENTS = [
    # (values, orphan)
    (("P1", "A1", "10.00", "l1", "2024-01-02 00:00:00", "p-1"), False),
    (("P2", "A404", "20.00", "l1", "2024-01-02 00:00:00", "p-2"), True),         # no such account
    (("P3", None, "30.00", "l1", "2024-01-02 00:00:00", "p-3"), False),          # a NULL fk is never an orphan
    (("P4", "", "40.00", "l1", "2024-01-02 00:00:00", "p-4"), True),             # an empty string is
    (("P5", "A2", "50.00", "l1", "2024-01-02 00:00:00", "p-5"), True),           # parent quarantined
    (("P6", "__unknown__", "60.00", "l1", "2024-01-02 00:00:00", "p-6"), True),  # the member never satisfies the probe
    (("P7", "a1", "70.00", "l1", "2024-01-02 00:00:00", "p-7"), True),           # case variant
    (("P8", " A1 ", "80.00", "l1", "2024-01-02 00:00:00", "p-8"), True),         # whitespace variant (no trim)
    (("P9", "A3", "90.00", "l1", "2024-01-02 00:00:00", "p-9"), False),
]
