"""Where things live in the repository."""

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
DOCS_DIR = REPO_ROOT / "docs"
# Figures written by snippets; pages link them as `assets/generated/...`.
GENERATED_DIR = DOCS_DIR / "assets" / "generated"
