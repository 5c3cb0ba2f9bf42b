"""Spec values turned into the numbers and names the IR carries.

The IR never carries spec text where SQL will use a number: retention in hours, quarantine
thresholds in basis points, drift sensitivity in hundredths, freshness as a count and a period.
These conversions run after the schema has checked the text's shape, so they do not re-validate.
"""
from __future__ import annotations

import re
from decimal import Decimal

from ..transforms.types import SpecType

RETENTION_HOURS = {"h": 1, "d": 24, "w": 168}
FRESHNESS_PERIOD = {"m": "minute", "h": "hour", "d": "day", "w": "day"}
FRESHNESS_MINUTES = {"m": 1, "h": 60, "d": 1440, "w": 10080}
DRIFT_DEFAULTS = {"window": 14, "min_history": 7, "sensitivity": 3, "min_change": "50%", "severity": "warn"}
# partition_by's bucketing functions (the schema admits these four) -> the date_trunc unit
_BUCKETS = {"days": "day", "months": "month", "years": "year", "hours": "hour"}


def type_ir(t: SpecType) -> dict:
    return {"name": t.name, "precision": t.precision, "scale": t.scale} if t.name == "decimal" else {"name": t.name}


def split_source_path(path: str) -> tuple[str, str | None]:
    """A mapping's `from` ("$.payload.price") -> the bronze column and the JSON path inside it."""
    parts = path.split(".")[1:]
    return parts[0], ("$." + ".".join(parts[1:]) if len(parts) > 1 else None)


def top_column(path: str) -> str:
    """The bronze column a `$.column[.inner...]` path reads."""
    return path.split(".")[1]


def inner_column(expr: str) -> str:
    """The column of a partition_by item: `days(ordered_at)` -> `ordered_at`."""
    m = re.fullmatch(r"\s*\w+\((\w+)\)\s*", expr)
    return m.group(1) if m else expr.strip()


def time_bucket(expr: str) -> str | None:
    """The time bucket of a partition_by item: "day" for `days(col)`, None for a bare column."""
    m = re.fullmatch(r"\s*(\w+)\((\w+)\)\s*", expr)
    return _BUCKETS[m.group(1)] if m else None


def retention_hours(retention: str) -> int:
    return int(retention[:-1]) * RETENTION_HOURS[retention[-1]]


def drift_settings(spec: dict) -> dict:
    """An entity's `drift:` block with its defaults: runs as integers, sensitivity in hundredths,
    min_change in basis points (of the baseline median)."""
    d = dict(DRIFT_DEFAULTS, **spec)
    return {"window": int(d["window"]), "min_history": int(d["min_history"]),
            "sensitivity_x100": int(Decimal(str(d["sensitivity"])) * 100),
            "min_change_bp": basis_points(d["min_change"]), "severity": d["severity"]}


def basis_points(percent: str) -> int:
    """A quarantine threshold (`^(100|[1-9]?[0-9](\\.[0-9]{1,2})?)%$`) in basis points: "0.5%" is 50."""
    return int(Decimal(percent[:-1]) * 100)


def percent(bp: int) -> str:
    """Basis points as the spec writes a threshold: 50 is "0.5%", 1000 is "10%"."""
    whole, part = divmod(int(bp), 100)
    return f"{whole}%" if not part else f"{whole}.{part:02d}".rstrip("0") + "%"


def freshness_duration(text: str) -> dict:
    count, unit = int(text[:-1]), text[-1]
    if unit == "w":
        count *= 7
    return {"count": count, "period": FRESHNESS_PERIOD[unit]}


def freshness_minutes(text: str) -> int:
    """A freshness duration (`^[1-9][0-9]{0,4}[mhdw]$`) in minutes, to compare two of them."""
    return int(text[:-1]) * FRESHNESS_MINUTES[text[-1]]
