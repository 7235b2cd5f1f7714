# Two commands do everything (see README.md):
#   make serve   set up .venv/ if needed, then serve the site with live reload
#   make test    set up .venv/ if needed, then run the whole verification
# The virtual environment is (re)installed only when requirements.txt or
# pyproject.toml change: the stamp file's name is a hash of both.

PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
PINS_HASH := $(shell cat requirements.txt pyproject.toml | sha256sum | cut -c1-16)
STAMP  := $(VENV)/.installed-$(PINS_HASH)
# Where the test run writes its verification report (read by the site build).
REPORTS := .reports
SITE_DIR ?= site
export NO_MKDOCS_2_WARNING := 1
# Two workers: one interpreter each, torch imported once per worker.
PYTEST_ARGS ?= -n 2

.PHONY: serve test lint pytest build update-examples setup clean

serve: $(STAMP)
	$(BIN)/mkdocs serve --dev-addr 127.0.0.1:8000 --livereload

test: $(STAMP)
	$(MAKE) --no-print-directory lint
	$(MAKE) --no-print-directory pytest
	$(MAKE) --no-print-directory build

lint: $(STAMP)
	$(BIN)/ruff check snippets tests hooks src $(wildcard benchmarks)
	$(BIN)/ruff format --check tests hooks src $(wildcard benchmarks)

pytest: $(STAMP)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

build: $(STAMP)
	$(BIN)/mkdocs build --strict --site-dir $(SITE_DIR)

# Rewrite the `#>` output lines of every snippet after a deliberate change
# (one section only: `make update-examples K=tensors`).
update-examples: $(STAMP)
	$(BIN)/python -m pytest tests/test_snippets.py --update-examples -p no:xdist $(if $(K),-k "$(K)")

setup: $(STAMP)

$(STAMP): requirements.txt pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info[:2] == (3, 11), "PyTorch Notes needs Python 3.11; set PYTHON=/path/to/python3.11"'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --disable-pip-version-check -r requirements.txt
	rm -f $(VENV)/.installed-*
	touch $@

clean:
	rm -rf $(SITE_DIR) $(REPORTS) .pytest_cache .ruff_cache

# Models: the full Conv1d(k=1) vs Linear sweep behind docs/models/conv1d-linear.md.
# Rewrites docs/assets/generated/models/conv1d_vs_linear{.png,_table.txt}; run it
# on a quiet machine (about a minute on 2 cores) and commit both files.
.PHONY: bench-conv1d-linear
bench-conv1d-linear: $(STAMP)
	$(BIN)/python benchmarks/conv1d_vs_linear.py

# Data: num_workers timings behind docs/data/num-workers.md. Rewrites
# docs/assets/generated/data/num_workers.txt; run on a quiet machine (about six
# minutes on 2 cores) and commit it.
.PHONY: bench-num-workers
bench-num-workers: $(STAMP)
	$(BIN)/python benchmarks/num_workers.py
