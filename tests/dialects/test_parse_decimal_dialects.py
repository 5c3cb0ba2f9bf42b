"""`parse_decimal` rendered for Trino, Snowflake, BigQuery, Redshift and Databricks by the real
adapters (offline.py), in a quality entity (NULL on failure) and outside one (produce or raise),
and every statement parsed by sqlglot in that dialect. The engines that run it for real are in
tests/integration/test_parse_decimal.py."""
from __future__ import annotations

import pytest
import sqlglot

from ..integration.decimal_spellings import mapping, model
from .offline import by_dialect, render

pytestmark = pytest.mark.dialects

MODEL = model()
PRICES = mapping("shop__prices", "price", """\
  amount:
    from: "$.amount"
    transform: [{parse_decimal: {decimal: ",", group: ".", currency: ["€", EUR, "US$", "$"]}}]
unmapped: ["$._load_id", "$._ingested_at", "$._source_row_id"]
""")
TARIFFS = mapping("shop__tariffs", "tariff", """\
  rate: {from: "$.rate", transform: [{parse_decimal: {decimal: ".", group: "'"}}]}
""")

# the dialect's own regex and NULL-on-failure cast (or its parent's, through dbt's dispatch)
MATCH = {"trino": "regexp_like(", "snowflake": "regexp_like(", "bigquery": "regexp_contains(",
         "redshift": " ~ ", "databricks": " rlike "}
SAFE = {"trino": "try_cast(", "snowflake": "try_cast(cast(", "bigquery": "safe_cast(", "redshift": "try_cast(",
        "databricks": "try_cast("}

_rendered: dict = {}


@pytest.fixture
def rendered(tmp_path_factory):
    def get(dialect):
        if dialect not in _rendered:
            tmp = tmp_path_factory.mktemp(f"parse_decimal_{dialect}")
            specs = tmp / "specs"
            specs.mkdir()
            (specs / "model.yaml").write_text(MODEL)
            (specs / "prices.yaml").write_text(PRICES)
            (specs / "tariffs.yaml").write_text(TARIFFS)
            _rendered[dialect] = render(dialect, specs, tmp)
        return _rendered[dialect]
    return get


def _staged(out, entity):
    (sql,) = [sql for name, sql in out.items() if name.startswith("empty/") and name.endswith(f"/{entity}__staged.sql")]
    return sql.lower()


@by_dialect
def test_parse_decimal_renders_and_parses(rendered, dialect):
    out = rendered(dialect)
    failures = []
    for name, sql in out.items():
        if not sql.strip():
            continue
        try:
            assert [t for t in sqlglot.parse(sql, read=dialect) if t is not None], name
        except Exception as exc:  # sqlglot's ParseError / TokenError
            failures.append(f"{name}: {str(exc)[:400]}")
    assert not failures, "\n".join(failures)

    price = _staged(out, "price")
    assert "replace(" in price and MATCH[dialect] in price and SAFE[dialect] in price
    # the currencies are cleared longest first, `US$` before `$`
    assert price.index("'us$'") < price.index("'$'")
    tariff = _staged(out, "tariff")
    assert "does not match the decimal format of -1''234.50" in tariff or \
           "does not match the decimal format of -1\\'234.50" in tariff, dialect
    if dialect == "databricks":
        assert "raise_error(" in tariff                   # ANSI off on Spark: the cast alone would not raise
