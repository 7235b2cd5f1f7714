"""pyproject.toml, read with the standard library's TOML parser (tomli's on Python 3.10)."""

from __future__ import annotations

import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # the same parser, as a package (requirements.txt pins it for 3.10)
    import tomli as tomllib


def load(root: Path) -> dict:
    return tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
