"""The second share of DuckDB's generated examples of the conservation property
(test_conservation_property.py draws the first and replays the regressions): a module of its own,
so that `--dist loadfile` can run it on another worker."""
from .test_conservation_property import project_fixture, test_every_row_is_accounted_for, test_report  # noqa: F401

project = project_fixture("duckdb")
SHARE = (1, 2)
