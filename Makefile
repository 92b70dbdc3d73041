# Every target that needs Python creates .venv on first use, so on a fresh machine `make run` and
# `make test` are each the only command needed.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check -q

.PHONY: install run test test-slow smoke dist publish conformance lint bench docs clean

# pip 23.3 or newer matches extras by their normalised names (PEP 685); older pips warn that lxml "does not
# provide the extra 'html_clean'" that trafilatura's justext asks for.
$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade 'pip>=23.3'
	$(PIP) install -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade 'pip>=23.3'
	$(PIP) install -e '.[dev]'
	touch $(VENV)/.installed $@

# `sneakycode` on your PATH, in an environment of its own: uv tool, pipx, or a private venv under
# $(PREFIX)/share/sneakycode linked into $(PREFIX)/bin (scripts/install.sh says which it used). Needs no .venv.
PREFIX ?= $(HOME)/.local
install:
	PREFIX='$(PREFIX)' PYTHON='$(PYTHON)' scripts/install.sh

# SneakyCode from the clone, on the clone itself (for working on SneakyCode; `make install` is for your projects).
run: $(VENV)/.installed
	$(VENV)/bin/sneakycode

# `make test` needs nothing beside the clone; the suites built from ../shared/data run in `make conformance`.
# Three workers on two cores: most tests wait on a subprocess, a pseudo-terminal or a local server, so two
# workers left the cores idle about half the time (8 min 20 s with -n 2, 6 min 5 s with -n 3 on 2 cores).
test: $(VENV)/.installed-dev
	$(PY) -m pytest -n 3 -q --ignore=tests/conformance --ignore=tests/smoke -m "not slow"

# The suites marked slow (every eval task's reference solution, the whole suite answered "Done.", the 1 GB
# job): .ci/run runs them after `make test`, so the edit-test loop stays short.
test-slow: $(VENV)/.installed-dev
	$(PY) -m pytest -n 2 -q --ignore=tests/conformance --ignore=tests/smoke -m slow

# The release as a user gets it: the sdist and the wheel built from it, checked by twine; the wheel installed
# without extras into a venv of its own (.smoke/), and tests/smoke run against that copy's `sneakycode`.
# build and twine live in a venv of their own (.release/): twine brings keyring, and with keyring importable
# the dev venv's first-run setup would offer to save keys in it.
RELEASE := .release
$(RELEASE)/.installed:
	test -x $(RELEASE)/bin/python || $(PYTHON) -m venv $(RELEASE)
	$(RELEASE)/bin/python -m pip --disable-pip-version-check -q install --upgrade 'pip>=23.3' 'build>=1.2' 'twine>=5'
	touch $@

dist: $(RELEASE)/.installed
	rm -rf dist
	$(RELEASE)/bin/python -m build --outdir dist .
	$(RELEASE)/bin/python -m twine check --strict dist/*

# Publishing is this one command once `make smoke` passed (twine asks for, or reads, the PyPI token).
publish: dist
	$(RELEASE)/bin/python -m twine upload dist/*

smoke: dist $(VENV)/.installed-dev
	rm -rf .smoke
	SNEAKYCODE_INSTALLER=venv PREFIX='$(CURDIR)/.smoke' PYTHON='$(PYTHON)' scripts/install.sh dist/*.whl
	SNEAKYCODE_SMOKE_BIN='$(CURDIR)/.smoke/bin/sneakycode' $(PY) -m pytest -q -p no:cacheprovider tests/smoke

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
	rm -rf $(VENV) $(RELEASE) .pytest_cache .mypy_cache .ruff_cache .smoke dist
