# Two commands do everything (see README.md):
#   make serve   set up .venv/ with the docs set if needed, then serve the site with live reload
#   make test    set up .venv/ with the full set if needed, then run the whole verification
# Two requirement sets: requirements-docs.txt (MkDocs, its i18n plugin, this package: all that
# `make serve` and `make build` need) and requirements.txt (that set plus the torch
# and test stack). Each is (re)installed only when its pins change: a stamp file's
# name is a hash of the files it installs from.

# Any Python from 3.10 to 3.13 works (`make test PYTHON=python3.13`); 3.11 is the one CI
# pins and the `#>` lines show (docverify.matrix.stacks.PINNED_PYTHON). The stamps' hashes
# include the Python's version, so another Python makes .venv anew.
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
PYTHON_VERSION := $(shell $(PYTHON) -V 2>&1)
PINS_HASH := $(shell (cat requirements.txt requirements-docs.txt pyproject.toml; echo "$(PYTHON_VERSION)") | sha256sum | cut -c1-16)
STAMP  := $(VENV)/.installed-$(PINS_HASH)
DOCS_PINS_HASH := $(shell (cat requirements-docs.txt pyproject.toml; echo "$(PYTHON_VERSION)") | sha256sum | cut -c1-16)
DOCS_STAMP := $(VENV)/.installed-docs-$(DOCS_PINS_HASH)
# Where the test run writes its verification report (read by the site build).
REPORTS := .reports
SITE_DIR ?= site
export NO_MKDOCS_2_WARNING := 1
PORT ?= 8000
# A .venv copied or moved from another folder still runs that folder's Python (the
# first line of each of its scripts): say so at once, rather than fail obscurely later.
VENV_PYTHON := $(shell sed -n '1s/^\#!//p' $(BIN)/mkdocs 2>/dev/null)
ifneq ($(VENV_PYTHON),)
ifneq ($(VENV_PYTHON),$(realpath $(BIN))/python)
$(error $(VENV) was made in another folder (its scripts run $(VENV_PYTHON)); make a new one: rm -rf $(VENV) && make setup)
endif
endif
# Two workers: one interpreter each, torch imported once per worker; the tests that
# read the built site share one build (tests/conftest.py, `built_site`).
PYTEST_ARGS ?= -n 2

.PHONY: serve test lint pytest build update-examples setup clean

# The docs set is enough to serve. Live verification (re-running a saved snippet,
# docverify.site.live_phase) joins by itself where the full set is installed too
# (after `make test` or `make setup`); with the docs set alone it says it is off.
# --dirty: MkDocs rebuilds only the pages whose built file is missing or older than the
# page; live verification removes the built pages a saved snippet changes (or all of
# them when anything else changed), so a save rebuilds only what it affects.
serve: $(DOCS_STAMP)
	@$(BIN)/python -c "import socket; socket.create_server(('127.0.0.1', $(PORT))).close()" 2>/dev/null \
	  || { echo "make serve: port $(PORT) is in use; pick another: make serve PORT=8001" >&2; exit 1; }
	@$(if $(ZH),,echo "make serve: the English edition only (the first page comes sooner); make serve ZH=1 serves 简体中文 too")
	NOTES_ZH=$(if $(ZH),true,false) PYTHONPATH=src $(BIN)/mkdocs serve --dirty --livereload --dev-addr 127.0.0.1:$(PORT)

test: $(STAMP)
	$(MAKE) --no-print-directory lint
	$(MAKE) --no-print-directory pytest
	$(MAKE) --no-print-directory build

lint: $(STAMP)
	$(BIN)/ruff check snippets tests src scripts $(wildcard benchmarks)
	$(BIN)/ruff format --check tests src scripts $(wildcard benchmarks)

pytest: $(STAMP)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

build: $(DOCS_STAMP)
	PYTHONPATH=src $(BIN)/mkdocs build --strict --site-dir $(SITE_DIR)

# Rewrite the `#>` output lines of every snippet after a deliberate change
# (one section only: `make update-examples K=tensors`).
update-examples: $(STAMP)
	$(BIN)/python -m pytest tests/test_snippets.py --update-examples -p no:xdist $(if $(K),-k "$(K)")

setup: $(STAMP)

# A .venv of another Python than $(PYTHON) is made anew (a link to another checkout's
# environment is only unlinked).
define make_venv
	@$(PYTHON) -c 'import sys; assert (3, 10) <= sys.version_info[:2] <= (3, 13), "PyTorch Notes runs on Python 3.10 to 3.13; set PYTHON=/path/to/python3.X"'
	test -x $(BIN)/python && [ "$$($(BIN)/python -V 2>&1)" = "$(PYTHON_VERSION)" ] || { rm -rf $(VENV) && $(PYTHON) -m venv $(VENV); }
endef

# The full set includes the docs set, so it leaves both stamps current.
# PIP_CONSTRAINT=/dev/null: a machine-wide pip constraints file (such as one capping torch
# below the pin) must not override requirements.txt's exact pins for this install.
$(STAMP): requirements.txt requirements-docs.txt pyproject.toml
	$(make_venv)
	PIP_CONSTRAINT=/dev/null $(BIN)/python -m pip install --disable-pip-version-check -r requirements.txt
	rm -f $(VENV)/.installed-*
	touch $@ $(DOCS_STAMP)

# --no-compile: Python byte-compiles what it imports on first use; compiling every
# installed file up front (pip's default) takes half of a fresh docs install.
$(DOCS_STAMP): requirements-docs.txt pyproject.toml
	$(make_venv)
	$(BIN)/python -m pip install --disable-pip-version-check --no-compile -r requirements-docs.txt
	rm -f $(VENV)/.installed-docs-*
	touch $@

clean:
	rm -rf $(SITE_DIR) $(REPORTS) .pytest_cache .ruff_cache

# Models: the full Conv1d(k=1) vs Linear sweep behind docs/models/conv1d_linear.md.
# Rewrites docs/assets/generated/models/conv1d_linear{.png,_table.txt,_summary.md,
# _summary.zh.md}; run it on a quiet machine (about a minute on 2 cores) and commit them.
.PHONY: bench-conv1d-linear
bench-conv1d-linear: $(STAMP)
	$(BIN)/python benchmarks/conv1d_linear.py

# Data: num_workers timings behind docs/data/num_workers.md, timing the page's own
# pipeline (snippets/data/num_workers.py:pipeline). Rewrites
# docs/assets/generated/data/num_workers.txt and the prose's generated summary
# num_workers_summary{.md,.zh.md}; run on a quiet machine (about two minutes on 2 cores) and
# commit both (tests/test_benchmark_num_workers.py then checks the prose's verdicts).
# Only the summary, from the committed table: benchmarks/num_workers.py --summary-only
.PHONY: bench-num-workers
bench-num-workers: $(STAMP)
	$(BIN)/python benchmarks/num_workers.py

# Search: the site's search against Material's and Pagefind on tests/search_cases.yaml
# (scripts/compare_search.py, a few minutes). Rewrites
# docs/assets/generated/search/comparison{.json,_summary.md,_summary.zh.md}; commit them
# (tests/test_measured_summaries.py checks the summary against the data).
.PHONY: compare-search
compare-search: $(STAMP)
	PIP_CONSTRAINT=/dev/null $(BIN)/python -m pip install --disable-pip-version-check -q -r requirements-measure.txt  # the pins of requirements.txt, as `setup` installs them
	$(BIN)/python scripts/compare_search.py

# Lighthouse (accessibility, best practices, SEO) on every page type in both editions
# (several minutes). Installs Lighthouse from tools/lighthouse/package-lock.json, runs it
# with Debian's chromium, and rewrites
# docs/assets/generated/accessibility/lighthouse{.json,_summary.md,_summary.zh.md}.
.PHONY: lighthouse
lighthouse: $(STAMP)
	cd tools/lighthouse && npm ci --no-audit --no-fund
	$(BIN)/python scripts/lighthouse_accessibility.py

# The version matrix: every snippet on each stack declared in src/docverify/matrix/stacks.py
# (torch 2.4 to the newest on the pinned Python; Python 3.10-3.13 on the pinned torch),
# each in its own environment under .matrix/venvs/, made by uv from its cache. uv does
# not read pip's configuration, so a pip constraints file (this machine's caps torch
# for .venv) does not apply to these environments. Rewrites
# docs/assets/generated/matrix/<stack>.json; commit them. A rerun records only the files
# changed since (STACKS="py3.13-torch2.15.0 ..." and K=<path part> narrow it). It runs in
# the docs environment, which reads mkdocs.yml's options for the recorder.
UV_VERSION := 0.13.8
MATRIX_TOOLS := .matrix/tools
.PHONY: matrix
matrix: $(DOCS_STAMP)
	test -x $(MATRIX_TOOLS)/bin/uv || { $(PYTHON) -m venv $(MATRIX_TOOLS) && $(MATRIX_TOOLS)/bin/python -m pip install --disable-pip-version-check uv==$(UV_VERSION); }
	UV=$(MATRIX_TOOLS)/bin/uv $(BIN)/python scripts/matrix.py $(foreach s,$(STACKS),--stack $(s)) $(if $(K),-k "$(K)")

# Suite time: the snippet verification (pytest -n 2 tests/test_snippets.py) against every
# snippet file run as its own `python` (or torchrun) process, two at a time, in one
# invocation; prints the machine, both wall times and the ratio (scripts/measure_snippet_ratio.py).
# More rounds, alternating the two sides: make measure-snippet-ratio ROUNDS=3
ROUNDS ?= 1
.PHONY: measure-snippet-ratio
measure-snippet-ratio: $(STAMP)
	$(BIN)/python scripts/measure_snippet_ratio.py --repeat $(ROUNDS)

# The build: CPU seconds of each plugin phase, and the build against the same build without
# the plugin, alternating in one run (scripts/profile_build.py; about 2 minutes).
PROFILE_ROUNDS ?= 3
.PHONY: profile-build
profile-build: $(DOCS_STAMP)
	PYTHONPATH=src $(BIN)/python scripts/profile_build.py --rounds $(PROFILE_ROUNDS)

# Live verification: seconds from saving a snippet to `make serve`'s page showing its
# result, in both languages (scripts/measure_live.py; PORT as for make serve).
.PHONY: measure-live
measure-live: $(DOCS_STAMP)
	$(BIN)/python scripts/measure_live.py --port $(PORT)

# On a GPU machine that has its own Python and torch (no .venv, nothing downloaded):
# the CUDA and device-dependent cases; writes .reports/cuda.json and lists the `#>`
# lines that print differently there (see CONTRIBUTING.md, "Verifying on a GPU machine").
GPU_PYTHON ?= python3
.PHONY: verify-gpu
verify-gpu:
	$(GPU_PYTHON) scripts/verify_gpu.py

# Search: the site's search's results for a query, with their scores and the heading
# each links to (scripts/search.py: builds the site, about half a minute, and asks it in
# Debian's chromium, as the browser tests do).
#   make search Q="Timed out waiting 1800000ms for recv operation" [LANG=zh]
# The query reaches the script through the environment, quotes and all; LANG counts only
# on the command line (the environment's LANG is the locale).
export Q
SEARCH_LANG := $(if $(filter command line,$(origin LANG)),$(LANG),en)
.PHONY: search
search: $(STAMP)
	@test -n "$$Q" || { echo 'make search: say the query: make search Q="..." [LANG=zh]' >&2; exit 1; }
	LANG=C.UTF-8 $(BIN)/python scripts/search.py --lang $(SEARCH_LANG) "$$Q"
