"""Where things live in the repository.

`REPO_ROOT` is the checkout this package was imported from: a default for
scripts (`python benchmarks/x.py`, a snippet saving a figure). The test run and
the site build take the checkout from pytest's root directory and from
mkdocs.yml's folder, and import this package from that checkout's src/
(pyproject's `pythonpath`; the Makefile's PYTHONPATH for MkDocs).
"""

from __future__ import annotations

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
DOCS_DIR = REPO_ROOT / "docs"
# Figures written by snippets; pages link them as `assets/generated/...`.
GENERATED_DIR = DOCS_DIR / "assets" / "generated"
