"""Where things live in the repository, and which checkout is being verified.

`REPO_ROOT` is the checkout this package was imported from: a default for
scripts (`python benchmarks/x.py`, a snippet saving a figure). The test run and
the site build do not use it: they take the checkout from pytest's root
directory and from mkdocs.yml's folder, and refuse to start when this package
comes from another checkout (`packages_from_other_trees`).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
DOCS_DIR = REPO_ROOT / "docs"
# Figures written by snippets; pages link them as `assets/generated/...`.
GENERATED_DIR = DOCS_DIR / "assets" / "generated"

# The project's own packages (src/<name>): they must come from the tree being verified.
PROJECT_PACKAGES = ("docverify",)


def imported_from(name: str) -> Path | None:
    """The folder the package `name` is (or would be) imported from; None if not importable."""
    module = sys.modules.get(name)
    origin = getattr(module, "__file__", None) if module is not None else None
    if origin is None:
        spec = importlib.util.find_spec(name)
        origin = spec.origin if spec is not None else None
    return Path(origin).resolve().parent if origin else None


def packages_from_other_trees(root: Path) -> list[str]:
    """One line per project package that `root` holds but that is imported from elsewhere.

    A second checkout run with a virtual environment made in the first imports
    the first checkout's packages (the editable install points there): its test
    run would then verify the first checkout's machinery, and report green.
    A folder without src/<name> (a throw-away test project) has nothing to check.
    """
    problems = []
    for name in PROJECT_PACKAGES:
        own = (root / "src" / name).resolve()
        if not own.is_dir():
            continue
        found = imported_from(name)
        if found != own:
            problems.append(f"`{name}` is imported from {found}, not from {own}")
    return problems


def other_tree_message(root: Path, problems: list[str], what: str) -> str:
    """The error shown when `packages_from_other_trees(root)` found something."""
    return (
        f"{what} checks the checkout {root}, but the Python packages it runs come "
        "from another checkout:\n  " + "\n  ".join(problems) + "\n"
        "The virtual environment was made in that other checkout. Make one here "
        f"(`make setup` in {root}), or put this checkout's packages first: "
        f"PYTHONPATH={root / 'src'}"
    )
