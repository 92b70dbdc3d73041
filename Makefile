# Every target that needs Python creates .venv on first use, so on a fresh machine `make run` and
# `make test` are each the only command needed.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check -q

.PHONY: run test test-slow conformance lint bench docs clean

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

# `make test` needs nothing beside the clone; the suites built from ../shared/data run in `make conformance`.
test: $(VENV)/.installed-dev
	$(PY) -m pytest -n 2 -q --ignore=tests/conformance -m "not slow"

# The suites marked slow (every eval task's reference solution, the whole suite answered "Done.", the 1 GB
# job): .ci/run runs them after `make test`, so the edit-test loop stays short.
test-slow: $(VENV)/.installed-dev
	$(PY) -m pytest -n 2 -q --ignore=tests/conformance -m slow

conformance: $(VENV)/.installed-dev
	$(PY) -m pytest -q tests/conformance

lint: $(VENV)/.installed-dev
	$(PY) -m ruff check src tests bench
	$(PY) -m mypy src
	$(VENV)/bin/lint-imports

# The reference tools the benchmarks compare against (bench/html_convert.py), installed on their own: pip 23's
# resolver fails on readability-lxml's `lxml[html_clean]` when it is resolved together with this package.
bench: $(VENV)/.installed-dev
	$(PIP) install 'markdownify>=0.11' 'readability-lxml>=0.8'
	$(PY) bench/run_all.py

docs: $(VENV)/.installed-dev
	$(PY) -m sneakycode.docs

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
