"""Timestamp spellings and what every engine must make of them: bronze text cast to a `timestamp`
(`parse_ts: ISO8601`, a string mapped onto a timestamp field, `_ingested_at`), through
`bloomery.text_to_timestamp` (tests/integration/test_timestamp_spellings.py).

Timestamps are zoneless UTC: an offset is converted, never dropped. CASES holds (text, expected),
the expected value written as the engines print a timestamp, or None for a coercion failure (NULL
in a quality entity, an error outside one). The same list is asserted on DuckDB, PostgreSQL and
Spark: there is no per-engine column, because there is no per-engine answer.
"""
CASES = [
    # offsets are honoured: the instant, in UTC
    ("2026-01-06T12:00:00+01:00", "2026-01-06 11:00:00"),
    ("2026-01-06T12:00:00+0130", "2026-01-06 10:30:00"),
    ("2026-01-06T12:00:00.123456-05", "2026-01-06 17:00:00.123456"),
    ("2026-01-06T12:00:00-00:00", "2026-01-06 12:00:00"),
    ("2026-01-06 12:00:00Z", "2026-01-06 12:00:00"),
    ("2026-01-06T12:00:00z", "2026-01-06 12:00:00"),
    ("2026-01-06 12:00Z", "2026-01-06 12:00:00"),
    # across a day, a year, a leap day
    ("2026-01-06T23:30:00-05:00", "2026-01-07 04:30:00"),
    ("2026-01-01T00:30:00+01:00", "2025-12-31 23:30:00"),
    ("2024-02-29T23:00:00-01:00", "2024-03-01 00:00:00"),
    # separators, reduced precision, blanks around the value
    ("2026-01-06t12:00:00", "2026-01-06 12:00:00"),
    ("2026-01-06 12:00:00", "2026-01-06 12:00:00"),
    ("2026-01-06T12:00:00", "2026-01-06 12:00:00"),
    ("2026-01-06 12:00", "2026-01-06 12:00:00"),
    ("2026-01-06", "2026-01-06 00:00:00"),
    ("  2026-01-06T12:00:00Z \t", "2026-01-06 12:00:00"),
    # fractional seconds: kept to the microsecond, further digits dropped (not rounded)
    ("2026-01-06 12:00:00.5", "2026-01-06 12:00:00.5"),
    ("2026-01-06 12:00:00.000", "2026-01-06 12:00:00"),
    ("2026-01-06 12:00:00.9999999", "2026-01-06 12:00:00.999999"),
    # coercion failures: not a calendar date, out of range, not this shape
    ("2026-02-30T00:00:00Z", None),
    ("2026-02-29 00:00:00", None),
    ("2026-13-01 00:00:00", None),
    ("2026-01-06 24:00:00", None),
    ("2026-01-06 23:59:60", None),
    ("2026-01-06T12:00:00+24:00", None),
    ("0000-01-01 00:00:00", None),
    ("12026-01-06 12:00:00", None),
    ("garbage", None),
    ("", None),
    ("2026-1-6 12:00:00", None),
    ("2026-01-06  12:00:00", None),
    ("2026-01-06T12", None),
    ("2026-01-06T", None),
    ("2026-01-06Z", None),
    ("2026-01-06T12:00:00.", None),
    ("2026-01-06T12:00:00+1", None),
    ("2026-01-06 12:00:00 +01:00", None),
    ("2026-01-06 12:00:00 PST", None),
    ("2026-01-06 12:00:00 Europe/Paris", None),
    ("05/16/2023 10:00", None),
    ("20230517", None),
    ("epoch", None),
    ("infinity", None),
    ("now", None),
]
