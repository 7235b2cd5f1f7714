# Two commands do everything (see README.md):
#   make serve   set up .venv/ with the docs set if needed, then serve the site with live reload
#   make test    set up .venv/ with the full set if needed, then run the whole verification
# Two requirement sets: requirements-docs.txt (MkDocs, its i18n plugin, this package: all that
# `make serve` and `make build` need) and requirements.txt (that set plus the torch
# and test stack). Each is (re)installed only when its pins change: a stamp file's
# name is a hash of the files it installs from.

PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
PINS_HASH := $(shell cat requirements.txt requirements-docs.txt pyproject.toml | sha256sum | cut -c1-16)
STAMP  := $(VENV)/.installed-$(PINS_HASH)
DOCS_PINS_HASH := $(shell cat requirements-docs.txt pyproject.toml | sha256sum | cut -c1-16)
DOCS_STAMP := $(VENV)/.installed-docs-$(DOCS_PINS_HASH)
# Where the test run writes its verification report (read by the site build).
REPORTS := .reports
SITE_DIR ?= site
export NO_MKDOCS_2_WARNING := 1
# Two workers: one interpreter each, torch imported once per worker. `loadgroup`
# keeps each xdist_group (the browser tests share one built site) on one worker.
PYTEST_ARGS ?= -n 2 --dist loadgroup

.PHONY: serve test lint pytest build update-examples setup clean

# The docs set is enough to serve. Live verification (re-running a saved snippet,
# hooks/live_verification.py) joins by itself where the full set is installed too
# (after `make test` or `make setup`); with the docs set alone it says it is off.
serve: $(DOCS_STAMP)
	$(BIN)/mkdocs serve --dev-addr 127.0.0.1:8000 --livereload

test: $(STAMP)
	$(MAKE) --no-print-directory lint
	$(MAKE) --no-print-directory pytest
	$(MAKE) --no-print-directory build

lint: $(STAMP)
	$(BIN)/ruff check snippets tests hooks src scripts $(wildcard benchmarks)
	$(BIN)/ruff format --check tests hooks src scripts $(wildcard benchmarks)

pytest: $(STAMP)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

build: $(DOCS_STAMP)
	$(BIN)/mkdocs build --strict --site-dir $(SITE_DIR)

# Rewrite the `#>` output lines of every snippet after a deliberate change
# (one section only: `make update-examples K=tensors`).
update-examples: $(STAMP)
	$(BIN)/python -m pytest tests/test_snippets.py --update-examples -p no:xdist $(if $(K),-k "$(K)")

setup: $(STAMP)

define make_venv
	@$(PYTHON) -c 'import sys; assert sys.version_info[:2] == (3, 11), "PyTorch Notes needs Python 3.11; set PYTHON=/path/to/python3.11"'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
endef

# The full set includes the docs set, so it leaves both stamps current.
$(STAMP): requirements.txt requirements-docs.txt pyproject.toml
	$(make_venv)
	$(BIN)/python -m pip install --disable-pip-version-check -r requirements.txt
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
# num_workers_summary{.md,.zh.md}; run on a quiet machine (about six minutes on 2 cores) and
# commit both (tests/test_benchmark_num_workers.py then checks the prose's verdicts).
# Only the summary, from the committed table: benchmarks/num_workers.py --summary-only
.PHONY: bench-num-workers
bench-num-workers: $(STAMP)
	$(BIN)/python benchmarks/num_workers.py

# Search: the site's search against Material's and Pagefind on tests/search_cases.yaml
# (scripts/compare_search.py, about a minute). Rewrites
# docs/assets/generated/search/comparison{.json,_summary.md,_summary.zh.md}; commit them
# (tests/test_measured_summaries.py checks the summary against the data).
.PHONY: compare-search
compare-search: $(STAMP)
	$(BIN)/python scripts/compare_search.py

# Accessibility: Lighthouse on every page type in both editions (a few minutes). Installs
# Lighthouse from tools/lighthouse/package-lock.json, runs it with Debian's chromium, and
# rewrites docs/assets/generated/accessibility/lighthouse{.json,_summary.md,_summary.zh.md}.
.PHONY: lighthouse
lighthouse: $(STAMP)
	cd tools/lighthouse && npm ci --no-audit --no-fund
	$(BIN)/python scripts/lighthouse_accessibility.py

# Suite time: the snippet verification (pytest -n 2 tests/test_snippets.py) against every
# snippet file run as its own `python` (or torchrun) process, two at a time, in one
# invocation; prints the machine, both wall times and the ratio (scripts/measure_snippet_ratio.py).
# More rounds, alternating the two sides: make measure-snippet-ratio ROUNDS=3
ROUNDS ?= 1
.PHONY: measure-snippet-ratio
measure-snippet-ratio: $(STAMP)
	$(BIN)/python scripts/measure_snippet_ratio.py --repeat $(ROUNDS)

# On a GPU machine that has its own Python and torch (no .venv, nothing downloaded):
# the CUDA and device-dependent cases; writes .reports/cuda.json and lists the `#>`
# lines that print differently there (see CONTRIBUTING.md, "Verifying on a GPU machine").
GPU_PYTHON ?= python3
.PHONY: verify-gpu
verify-gpu:
	$(GPU_PYTHON) scripts/verify_gpu.py
