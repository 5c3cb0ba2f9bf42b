# Two commands do all the set-up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: demo test venv clean

$(BIN)/bloomery: pyproject.toml requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements-dev.txt -e .
	touch $@

venv: $(BIN)/bloomery

## Compile the shop specs and build them on DuckDB with dirty bronze data, then say what happened.
demo: venv
	$(BIN)/python demo/run_demo.py

## The full test suite (what CI runs).
test: venv
	$(BIN)/python -m pytest -q

clean:
	rm -rf $(VENV) integration_tests/target integration_tests/dbt_packages demo/build
