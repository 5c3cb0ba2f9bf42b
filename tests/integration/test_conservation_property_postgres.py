"""The conservation property and the idempotence tests of test_conservation_property.py on
PostgreSQL: the same tests, in a module of their own so that `--dist loadfile` can run them on
another worker than DuckDB's (BLOOMERY_PROPERTY_EXAMPLES_PG examples, 20 by default)."""
from .test_conservation_property import *  # noqa: F401,F403  (the tests, collected here again)
from .test_conservation_property import project_fixture

project = project_fixture("postgres")
SHARE = (0, 1)
