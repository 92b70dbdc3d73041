# Every target that needs Python creates .venv on first use, so on a fresh machine `make run` and
# `make test` are each the only command needed.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check -q

.PHONY: run test lint bench docs clean

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -e '.[dev]'
	touch $(VENV)/.installed $@

run: $(VENV)/.installed
	$(VENV)/bin/sneakycode

test: $(VENV)/.installed-dev
	$(PY) -m pytest -n 2 -q

lint: $(VENV)/.installed-dev
	$(PY) -m ruff check src tests bench
	$(PY) -m mypy src

bench: $(VENV)/.installed-dev
	$(PY) bench/run_all.py

docs: $(VENV)/.installed-dev
	$(PY) -m sneakycode.errors_doc > docs/errors.md
	$(PY) -m sneakycode.config_doc > docs/config.md

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
