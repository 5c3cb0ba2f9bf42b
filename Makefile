# Two commands do all the set-up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
# dbt would try to send usage events; this machine (and many CI runners) has no network for it.
export DBT_SEND_ANONYMOUS_USAGE_STATS := false

.PHONY: demo test venv pg clean

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

## The full test suite (what CI runs).
test: venv pg
	$(BIN)/python -m pytest -q

clean:
	rm -rf $(VENV) .pg integration_tests/target integration_tests/dbt_packages demo/build
