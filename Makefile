# Two commands do all the set-up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
SUDO   ?= $(shell [ "$$(id -u)" = 0 ] || echo sudo)
VENV   ?= .venv
BIN    := $(VENV)/bin
# dbt would try to send usage events; this machine (and many CI runners) has no network for it.
export DBT_SEND_ANONYMOUS_USAGE_STATS := false

.PHONY: demo test test-spark test-dialects golden venv pg sysdeps clean

$(BIN)/bloomery: pyproject.toml requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements-dev.txt -e .
	touch $@

venv: $(BIN)/bloomery

## PostgreSQL 18 for the engine tests, unpacked into .pg/ (a no-op once installed; scripts/postgres.sh).
pg: venv
	bash scripts/postgres.sh >/dev/null

## Compile the shop specs and build them on DuckDB with dirty bronze data, then say what happened.
demo: venv
	$(BIN)/python demo/run_demo.py

## What the suites need from the system, from Debian's packages when missing: headless Chromium
## (the report's chart is checked in it) and a Java 17 runtime (pyspark). A no-op once present;
## installing needs root (or sudo) and apt.
sysdeps:
	@command -v chromium >/dev/null || command -v chromium-browser >/dev/null || \
	  { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq chromium >/dev/null; }
	@command -v java >/dev/null || \
	  { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq openjdk-17-jre-headless >/dev/null; }

## The default test suite (the README's test command; CI runs it, then Spark and the dialects), on two workers: `loadfile` keeps a module on one worker with
## what it shares (a parsed project, a PostgreSQL server of the worker's own). Times: docs/reliability.md.
test: venv pg sysdeps
	$(BIN)/python -m pytest -q -n 2 --dist loadfile --durations=25

## The golden copies of the generated dbt files (tests/golden/trees), after a change to what the
## compiler emits on purpose: the diff is the review (tests/golden/test_golden.py checks them).
golden: venv
	$(BIN)/python -m tests.golden.golden

## Spark: the corpora, every rewrite of a parquet table and the regex corpus on a local pyspark
## session (Java 17; requirements-spark.txt into .venv). A separate step, in one process:
## two workers (two JVMs on two cores) were no faster.
$(VENV)/.spark-installed: requirements-spark.txt $(BIN)/bloomery
	$(BIN)/pip install --quiet -r requirements-spark.txt
	touch $@

test-spark: venv pg sysdeps $(VENV)/.spark-installed
	$(BIN)/python -m pytest -q -m spark --durations=25 tests/integration

## Trino, Snowflake, BigQuery, Redshift, Databricks: rendered with the real adapters, parsed by sqlglot.
DIALECTS_VENV := .venv-dialects
$(DIALECTS_VENV)/bin/bloomery: requirements-dialects.txt pyproject.toml
	$(PYTHON) -m venv $(DIALECTS_VENV)
	$(DIALECTS_VENV)/bin/pip install --quiet --upgrade pip
	$(DIALECTS_VENV)/bin/pip install --quiet -r requirements-dialects.txt
	$(DIALECTS_VENV)/bin/pip install --quiet --no-deps -e .
	touch $@

## Two workers, each with whole dialects (tests/dialects/offline.py: by_dialect), so a dialect's
## renders are made once and a worker imports only its own dialects' adapters.
test-dialects: $(DIALECTS_VENV)/bin/bloomery
	$(DIALECTS_VENV)/bin/python -m pytest -q -m dialects -n 2 --dist loadgroup --durations=25 tests/dialects

clean:
	rm -rf $(VENV) $(DIALECTS_VENV) .pg integration_tests/target integration_tests/dbt_packages demo/build
